// extrude(text.glyph(...), depth:) — viewer.md §5.6.1 (and §9 for runner 0.0.1).
import * as THREE from 'three';
import type { Font, PathCommand } from 'opentype.js';
import type { GlyphOptions } from './types.js';
import type { GlyphDetail } from '../../../src/lang/glyph-detail.js';
import { emFactor } from './font.js';
import { GLYPH_AUTO_MAX_WIDTH_FRACTION, GLYPH_AUTO_WORLD_PER_EM, runnerAtLeast } from './constants.js';

const BEVEL_SEGMENTS = 4;
/** the reference's sampling (viewer.md §5.6.1); a whole run drawn by glyphGeometry always has it */
const FULL: GlyphDetail = { curveSegments: 32, bevelSegments: BEVEL_SEGMENTS };
const AUTO_DEPTH_PER_PX = 0.025; // auto-fit: 16 px → 0.4 world, not tied to p2w
const AUTO_BEVEL = 0.04; // auto-fit: bevel thickness (world z) and bevel size (em)

/** One character's outline commands at pen x (em units, y up). */
export function glyphCommands(font: Font, ch: string, pen: number, out: PathCommand[] = []): PathCommand[] {
  const glyph = font.charToGlyph(ch); // a missing character gives glyph 0 (.notdef)
  const path = glyph.getPath(pen, 0, 1); // fontSize 1 → em units (font units / unitsPerEm), y down
  for (const c of path.commands) {
    const f: PathCommand = { type: c.type };
    if (c.x !== undefined) {
      f.x = c.x;
      f.y = -(c.y as number);
    }
    if (c.x1 !== undefined) {
      f.x1 = c.x1;
      f.y1 = -(c.y1 as number);
    }
    if (c.x2 !== undefined) {
      f.x2 = c.x2;
      f.y2 = -(c.y2 as number);
    }
    out.push(f);
  }
  return out;
}

/** Layout of §5.6.1: code points left to right from pen x = 0, no kerning, em units, y up. */
function layoutCommands(font: Font, text: string): PathCommand[] {
  const out: PathCommand[] = [];
  let pen = 0;
  for (const ch of text) {
    glyphCommands(font, ch, pen, out);
    pen += (font.charToGlyph(ch).advanceWidth ?? 0) / font.unitsPerEm;
  }
  return out;
}

/** The extrusion of §5.6.1: `k` is world per em for a sized run, null for auto-fit (bevel in em, fixed). */
export function glyphExtrudeOptions(
  depthPx: number,
  p2w: number,
  k: number | null,
  detail: GlyphDetail = FULL,
): THREE.ExtrudeGeometryOptions {
  if (k === null)
    return {
      depth: depthPx * AUTO_DEPTH_PER_PX,
      bevelEnabled: true,
      bevelThickness: AUTO_BEVEL,
      bevelSize: AUTO_BEVEL,
      bevelSegments: detail.bevelSegments,
      curveSegments: detail.curveSegments,
    };
  const dW = depthPx * p2w;
  return {
    depth: dW,
    bevelEnabled: true,
    bevelThickness: 0.3 * dW,
    bevelSize: k > 0 ? (0.3 * dW) / k : 0,
    bevelSegments: detail.bevelSegments,
    curveSegments: detail.curveSegments,
  };
}

export function toShapePath(cmds: PathCommand[]): THREE.ShapePath {
  const sp = new THREE.ShapePath();
  for (const c of cmds) {
    switch (c.type) {
      case 'M':
        sp.moveTo(c.x!, c.y!);
        break;
      case 'L':
        sp.lineTo(c.x!, c.y!);
        break;
      case 'Q':
        sp.quadraticCurveTo(c.x1!, c.y1!, c.x!, c.y!);
        break;
      case 'C':
        sp.bezierCurveTo(c.x1!, c.y1!, c.x2!, c.y2!, c.x!, c.y!);
        break;
      case 'Z':
        sp.currentPath?.closePath();
        break;
    }
  }
  return sp;
}

export function glyphGeometry(font: Font, o: GlyphOptions): THREE.BufferGeometry {
  const text = o.text.length > 0 ? o.text : '?';
  if (!runnerAtLeast(o.runner, '0.0.2')) return glyphGeometry001(font, text, o);

  const shapes = toShapePath(layoutCommands(font, text)).toShapes(false); // clockwise = solid
  const auto = o.sizePx === null || !Number.isFinite(o.sizePx);
  let geo: THREE.BufferGeometry;
  let k: number;
  if (auto) {
    geo = new THREE.ExtrudeGeometry(shapes, glyphExtrudeOptions(o.depthPx, o.p2w, null));
    geo.computeBoundingBox();
    const bb = geo.boundingBox!;
    const wEm = bb.max.x - bb.min.x;
    const maxW = GLYPH_AUTO_MAX_WIDTH_FRACTION * o.frameWidthPx * o.p2w; // 0.82 · VH · aspect
    k = GLYPH_AUTO_WORLD_PER_EM;
    if (wEm * k > maxW && wEm > 0) k = maxW / wEm;
  } else {
    k = (o.sizePx as number) * emFactor(font) * o.p2w;
    geo = new THREE.ExtrudeGeometry(shapes, glyphExtrudeOptions(o.depthPx, o.p2w, k));
  }
  geo.scale(k, k, 1);
  geo.center(); // QUIRK Q10: centred on its own bounding box in x, y and z
  return geo;
}

/** Runner 0.0.1: first character only, first contour = outline, every later one a hole, centred on the
 *  outline's flat box, re-sampled to 12 straight segments per curve, always 2.5 world/em, `size:` ignored.
 *  Like every extruded glyph (Q10) the solid is finally centred on its own box: the reference probe frame
 *  (fixture-homepage-probe, pinned 0.0.1) matches that to the pixel, not the flat-box centre alone. */
function glyphGeometry001(font: Font, text: string, o: GlyphOptions): THREE.BufferGeometry {
  const first = String.fromCodePoint(text.codePointAt(0)!);
  const sp = toShapePath(layoutCommands(font, first));
  const contours = sp.subPaths.map((p) => p.getPoints(12)).filter((pts) => pts.length >= 3);
  if (contours.length === 0)
    contours.push([new THREE.Vector2(0, 0), new THREE.Vector2(1e-6, 0), new THREE.Vector2(0, 1e-6)]);
  const box = new THREE.Box2().setFromPoints(contours[0]);
  const c = box.getCenter(new THREE.Vector2());
  const moved = contours.map((pts) => pts.map((p) => p.clone().sub(c)));
  const shape = new THREE.Shape(moved[0]);
  for (const h of moved.slice(1)) shape.holes.push(new THREE.Path(h));
  const depth = o.depthPx * AUTO_DEPTH_PER_PX;
  const geo = new THREE.ExtrudeGeometry(shape, {
    depth,
    bevelEnabled: true,
    bevelThickness: AUTO_BEVEL,
    bevelSize: AUTO_BEVEL,
    bevelSegments: BEVEL_SEGMENTS,
    curveSegments: 12,
  });
  geo.scale(GLYPH_AUTO_WORLD_PER_EM, GLYPH_AUTO_WORLD_PER_EM, 1);
  geo.center();
  return geo;
}
