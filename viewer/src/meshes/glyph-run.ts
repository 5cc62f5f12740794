// A run of extruded glyphs (viewer.md §5.6.1, runner 0.0.2 and later) built from one outline per distinct character:
// each outline is extruded once (in em units, at pen 0) and every character of the run is an instance of it, placed
// at its pen position, scaled and centred exactly as glyphGeometry scales and centres the whole run. What a page of
// text costs is then its distinct characters (the extrusion: tens of milliseconds each) plus the vertices it draws,
// not one extrusion per character (issue 37: 256 characters took 16 s and 573 MB as one geometry).
import * as THREE from 'three';
import type { Font } from 'opentype.js';
import type { GlyphOptions } from './types.js';
import { emFactor } from './font.js';
import { GLYPH_AUTO_MAX_WIDTH_FRACTION, GLYPH_AUTO_WORLD_PER_EM } from './constants.js';
import { glyphExtrudeOptions, toShapePath, glyphCommands } from './glyph.js';
import { glyphDetail } from '../../../src/lang/glyph-detail.js';

/** Options an outline depends on (the text and frame width do not change its shape). */
export type OutlineOptions = Pick<GlyphOptions, 'sizePx' | 'depthPx' | 'p2w' | 'fullDetail'>;

/** One character at its pen position (em units, left to right from 0, no kerning: §5.6.1). */
export interface PlacedChar {
  ch: string;
  pen: number;
}

export function glyphLayout(font: Font, text: string): PlacedChar[] {
  const out: PlacedChar[] = [];
  let pen = 0;
  for (const ch of text) {
    out.push({ ch, pen });
    pen += (font.charToGlyph(ch).advanceWidth ?? 0) / font.unitsPerEm;
  }
  return out;
}

/** The scale from em to world units that glyphGeometry gives a sized run (null size: auto-fit, set per run). */
export function sizedWorldPerEm(font: Font, o: OutlineOptions): number | null {
  if (o.sizePx === null || !Number.isFinite(o.sizePx)) return null;
  return o.sizePx * emFactor(font) * o.p2w;
}

/**
 * One character's extruded outline at pen 0, in em units (x, y) and world units (z), sampled as
 * src/lang/glyph-detail.ts says (the reference's sampling, or in proportion to a size under 96 px); null for none.
 */
export function glyphOutline(font: Font, ch: string, o: OutlineOptions): THREE.BufferGeometry | null {
  const shapes = toShapePath(glyphCommands(font, ch, 0)).toShapes(false);
  if (shapes.length === 0) return null;
  const detail = glyphDetail(o.sizePx, o.fullDetail ?? true);
  const flags: number[] = [];
  const geo = new THREE.ExtrudeGeometry(shapes, {
    ...glyphExtrudeOptions(o.depthPx, o.p2w, sizedWorldPerEm(font, o), detail),
    UVGenerator: penShiftRecorder(flags),
  });
  if (flags.length === geo.getAttribute('position').count)
    geo.setAttribute(PEN_SHIFT_ATTRIBUTE, new THREE.Float32BufferAttribute(flags, 1));
  return geo;
}

/**
 * Texture coordinates of a run drawn as instances. The whole run's one extrusion (the reference's) takes its UVs
 * from each vertex's place in the run, in em units: the caps (x, y), a side wall (x, 1 - z) where it runs along x
 * and (y, 1 - z) where it runs along y (three.js's world UV generator). An outline extruded at pen 0 has the same
 * UVs less the pen on every u taken from x; PEN_SHIFT_ATTRIBUTE marks those vertices (1) and PEN_ATTRIBUTE gives
 * each instance its pen, so the shader (build/materials.ts) adds shift × pen to u and an image spans the run.
 */
export const PEN_SHIFT_ATTRIBUTE = 'cmPenShift';
export const PEN_ATTRIBUTE = 'cmPen';

/** The world UV generator's UVs, recording per vertex (in the order ExtrudeGeometry adds them) whether u is x. */
function penShiftRecorder(flags: number[]): THREE.UVGenerator {
  return {
    generateTopUV(_g, v, a, b, c) {
      flags.push(1, 1, 1);
      return [a, b, c].map((i) => new THREE.Vector2(v[i * 3]!, v[i * 3 + 1]!));
    },
    generateSideWallUV(_g, v, a, b, c, d) {
      const alongX = Math.abs(v[a * 3 + 1]! - v[b * 3 + 1]!) < Math.abs(v[a * 3]! - v[b * 3]!);
      const f = alongX ? 1 : 0;
      flags.push(f, f, f, f, f, f); // ExtrudeGeometry adds a wall's four UVs as two triangles: a b d, b c d
      return [a, b, c, d].map((i) => new THREE.Vector2(v[i * 3 + (alongX ? 0 : 1)]!, 1 - v[i * 3 + 2]!));
    },
  };
}

/**
 * One distinct character's outline as the geometry of its instances in a run: the outline's own attributes (shared,
 * not copied) and each instance's pen (em units), in the order of the instance matrices.
 */
export function runInstancesGeometry(outline: THREE.BufferGeometry, pens: readonly number[]): THREE.BufferGeometry {
  const g = new THREE.BufferGeometry();
  g.setIndex(outline.index);
  for (const [name, attribute] of Object.entries(outline.attributes)) g.setAttribute(name, attribute);
  for (const group of outline.groups) g.addGroup(group.start, group.count, group.materialIndex);
  g.setAttribute(PEN_ATTRIBUTE, new THREE.InstancedBufferAttribute(new Float32Array(pens), 1));
  return g;
}

/** Where the run sits: world per em, and the centre (after that scale) that is moved to the origin (Q10). */
export interface RunPlacement {
  k: number;
  centre: THREE.Vector3;
}

/**
 * The placement glyphGeometry gives the whole run: its box is the union of each character's outline box at its pen;
 * a sized run scales by size, an auto-fit one by 1.2 world per em unless that is wider than 82 % of the frame.
 */
export function runPlacement(
  font: Font,
  layout: PlacedChar[],
  boxOf: (ch: string) => THREE.Box3 | null,
  o: GlyphOptions,
): RunPlacement {
  const box = new THREE.Box3();
  const shifted = new THREE.Box3();
  for (const { ch, pen } of layout) {
    const b = boxOf(ch);
    if (!b || b.isEmpty()) continue;
    shifted.copy(b);
    shifted.min.x += pen;
    shifted.max.x += pen;
    box.union(shifted);
  }
  let k = sizedWorldPerEm(font, o);
  if (k === null) {
    k = GLYPH_AUTO_WORLD_PER_EM;
    const wEm = box.isEmpty() ? 0 : box.max.x - box.min.x;
    const maxW = GLYPH_AUTO_MAX_WIDTH_FRACTION * o.frameWidthPx * o.p2w;
    if (wEm * k > maxW && wEm > 0) k = maxW / wEm;
  }
  const centre = box.isEmpty()
    ? new THREE.Vector3()
    : new THREE.Vector3(
        ((box.min.x + box.max.x) / 2) * k,
        ((box.min.y + box.max.y) / 2) * k,
        (box.min.z + box.max.z) / 2,
      );
  return { k, centre };
}

/** The matrix that puts an outline at `pen` within the placed run. */
export function instanceMatrix(p: RunPlacement, pen: number, out = new THREE.Matrix4()): THREE.Matrix4 {
  return out.set(p.k, 0, 0, p.k * pen - p.centre.x, 0, p.k, 0, -p.centre.y, 0, 0, 1, -p.centre.z, 0, 0, 0, 1);
}

/**
 * The run's bounding radius about its centre, as the bounding sphere of glyphGeometry's one geometry gives it (the
 * pivot's radius, viewer.md §5.7): the farthest vertex. For one outline the farthest distance is a convex function
 * of its pen, so only its leftmost and rightmost instances need measuring.
 */
export function runRadius(
  layout: PlacedChar[],
  outlineOf: (ch: string) => THREE.BufferGeometry | null,
  p: RunPlacement,
): number {
  const ends = new Map<string, [number, number]>();
  for (const { ch, pen } of layout) {
    const e = ends.get(ch);
    if (!e) ends.set(ch, [pen, pen]);
    else e[1] = pen;
  }
  let r2 = 0;
  for (const [ch, pens] of ends) {
    const g = outlineOf(ch);
    if (!g) continue;
    const pos = g.getAttribute('position');
    for (const pen of pens) {
      const dx0 = p.k * pen - p.centre.x;
      for (let i = 0; i < pos.count; i++) {
        const x = p.k * pos.getX(i) + dx0;
        const y = p.k * pos.getY(i) - p.centre.y;
        const z = pos.getZ(i) - p.centre.z;
        const d = x * x + y * y + z * z;
        if (d > r2) r2 = d;
      }
    }
  }
  return Math.sqrt(r2);
}
