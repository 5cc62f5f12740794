// Test helpers for src/export: read a GLB back, validate it, find the corpus SVGs, draw and compare line drawings.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PNG } from 'pngjs';
import { validateBytes, type ValidationReport } from 'gltf-validator';
import { examplesDir, corpusSkip } from '../helpers/shared.js';

export const SKIP_CORPUS = corpusSkip('its SVG sources and images');
export const HANDDRAWN_JPG = join(examplesDir, 'img', 'handdrawn.jpg');

// ---- GLB -----------------------------------------------------------------------------------------------

export async function validate(glb: Uint8Array): Promise<ValidationReport> {
  return validateBytes(new Uint8Array(glb));
}

/** A one-line summary of a report's errors, for assertion messages. */
export function errorsOf(r: ValidationReport): string {
  return r.issues.messages
    .filter((m) => m.severity === 0)
    .map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`)
    .join('; ');
}

export interface ReadGlb {
  json: any;
  positions: Float32Array;
  normals: Float32Array;
  indices: Uint16Array | Uint32Array;
}

/** Parse a GLB the way a glTF reader would: header, JSON chunk, BIN chunk, the three accessors. */
export function readGlb(glb: Buffer): ReadGlb {
  if (glb.readUInt32LE(0) !== 0x46546c67) throw new Error('not a GLB (magic)');
  const jsonLen = glb.readUInt32LE(12);
  const json = JSON.parse(glb.toString('utf8', 20, 20 + jsonLen));
  const binAt = 20 + jsonLen;
  const bin = glb.subarray(binAt + 8, binAt + 8 + glb.readUInt32LE(binAt));
  const view = (a: number) => {
    const acc = json.accessors[a],
      bv = json.bufferViews[acc.bufferView];
    const bytes = bin.subarray(bv.byteOffset ?? 0, (bv.byteOffset ?? 0) + bv.byteLength);
    const copy = new Uint8Array(bytes).buffer; // aligned copy
    const n = acc.count * (acc.type === 'VEC3' ? 3 : 1);
    return acc.componentType === 5126
      ? new Float32Array(copy, 0, n)
      : acc.componentType === 5123
        ? new Uint16Array(copy, 0, n)
        : new Uint32Array(copy, 0, n);
  };
  const prim = json.meshes[0].primitives[0];
  return {
    json,
    positions: view(prim.attributes.POSITION) as Float32Array,
    normals: view(prim.attributes.NORMAL) as Float32Array,
    indices: view(prim.indices) as Uint16Array | Uint32Array,
  };
}

/** Size of the box that holds every vertex (what a model viewer frames). */
export function extent(positions: Float32Array): { x: number; y: number; z: number; min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity],
    max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3)
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], positions[i + k]);
      max[k] = Math.max(max[k], positions[i + k]);
    }
  return { x: max[0] - min[0], y: max[1] - min[1], z: max[2] - min[2], min, max };
}

/** Signed volume of a closed triangle mesh: positive when its faces wind outwards (counter-clockwise). */
export function signedVolume(g: ReadGlb): number {
  const p = g.positions,
    ix = g.indices;
  let v = 0;
  for (let t = 0; t < ix.length; t += 3) {
    const a = ix[t] * 3,
      b = ix[t + 1] * 3,
      c = ix[t + 2] * 3;
    v +=
      p[a] * (p[b + 1] * p[c + 2] - p[b + 2] * p[c + 1]) -
      p[a + 1] * (p[b] * p[c + 2] - p[b + 2] * p[c]) +
      p[a + 2] * (p[b] * p[c + 1] - p[b + 1] * p[c]);
  }
  return v / 6;
}

// ---- The corpus ----------------------------------------------------------------------------------------

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** Every SVG of ../shared/examples: the .svg files, and each <svg>…</svg> written inline in a .cm source
 *  (svg("""…""") or a plain string). Named by file (and index when a source has several). */
export function corpusSvgs(): { name: string; svg: string }[] {
  if (!existsSync(examplesDir)) return [];
  const out: { name: string; svg: string }[] = [];
  for (const file of filesUnder(examplesDir)) {
    const rel = relative(examplesDir, file);
    if (file.endsWith('.svg')) out.push({ name: rel, svg: readFileSync(file, 'utf8') });
    else if (file.endsWith('.cm')) {
      const found = readFileSync(file, 'utf8').match(/<svg[\s>][\s\S]*?<\/svg>/g) ?? [];
      found.forEach((svg, i) => out.push({ name: found.length > 1 ? `${rel} #${i + 1}` : rel, svg }));
    }
  }
  return out;
}

// ---- Line drawings ---------------------------------------------------------------------------------------

export type Pt = [number, number];

function distToSeg(px: number, py: number, a: Pt, b: Pt): number {
  const dx = b[0] - a[0],
    dy = b[1] - a[1];
  const l2 = dx * dx + dy * dy;
  const t = l2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - a[0]) * dx + (py - a[1]) * dy) / l2));
  return Math.hypot(px - (a[0] + t * dx), py - (a[1] + t * dy));
}

/** Coverage mask (1 = ink) of polylines stroked with `width`, round caps and joins, at w × h pixels:
 *  pixel (x, y) is ink when the point (x, y) lies within width/2 of a segment. That is the tracer's own
 *  convention (viewer.md §5.6.5: a polyline vertex is a pixel's index, divided by σ), so the drawing and the
 *  trace drawn back with this one function line up; against pixel centres the trace sits ½ px up-left. */
export function strokeMask(lines: Pt[][], width: number, w: number, h: number): Uint8Array {
  const m = new Uint8Array(w * h),
    hw = width / 2;
  for (const line of lines) {
    for (let s = 0; s < Math.max(1, line.length - 1); s++) {
      const a = line[s],
        b = line[Math.min(s + 1, line.length - 1)];
      const x0 = Math.max(0, Math.floor(Math.min(a[0], b[0]) - hw - 1)),
        x1 = Math.min(w - 1, Math.ceil(Math.max(a[0], b[0]) + hw + 1));
      const y0 = Math.max(0, Math.floor(Math.min(a[1], b[1]) - hw - 1)),
        y1 = Math.min(h - 1, Math.ceil(Math.max(a[1], b[1]) + hw + 1));
      for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) if (distToSeg(x, y, a, b) <= hw) m[y * w + x] = 1;
    }
  }
  return m;
}

/** Black strokes on white paper as PNG bytes, and the ink mask they were drawn from. */
export function drawPng(lines: Pt[][], width: number, w: number, h: number): { png: Buffer; mask: Uint8Array } {
  const mask = strokeMask(lines, width, w, h);
  const png = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) {
    const v = mask[i] ? 0 : 255;
    png.data[4 * i] = png.data[4 * i + 1] = png.data[4 * i + 2] = v;
    png.data[4 * i + 3] = 255;
  }
  return { png: PNG.sync.write(png), mask };
}

/** Square dilation by r pixels. */
export function dilate(m: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      if (!m[y * w + x]) continue;
      for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++)
        for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) out[yy * w + xx] = 1;
    }
  return out;
}

export function iou(a: Uint8Array, b: Uint8Array): number {
  let inter = 0,
    union = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] && b[i]) inter++;
    if (a[i] || b[i]) union++;
  }
  return union === 0 ? 1 : inter / union;
}

/** The polylines of a vectorize SVG (its one path of `M x y L x y …`) and its stroke width. */
export function svgPolylines(svg: string): { lines: Pt[][]; strokeWidths: string[] } {
  const d = /<path d="([^"]*)"/.exec(svg)?.[1] ?? '';
  const lines = d
    .split('M')
    .filter((s) => s.trim())
    .map((s) => {
      const nums = s.replace(/L/g, ' ').trim().split(/\s+/).map(Number);
      const pts: Pt[] = [];
      for (let i = 0; i + 1 < nums.length; i += 2) pts.push([nums[i], nums[i + 1]]);
      return pts;
    });
  return { lines, strokeWidths: [...svg.matchAll(/stroke-width="([^"]*)"/g)].map((m) => m[1]) };
}
