// What one frame may ask the drawing page to build (docs/durability.md, "Limits"). The evaluator's own limits
// (EVL006..EVL008) bound the work in Node; these bound what a small value can make the page build: a 60 KB string in
// text.glyph is one node here but hundreds of thousands of triangles there. Counted per use, like EVL008.

import { namedField, positionalField, stripQuotes, type Value } from './value.js';
import { glyphVertexBound, glyphsFitInFull, MAX_GLYPH_VERTICES } from './glyph-detail.js';

export { MAX_GLYPH_VERTICES, glyphVertexBound };

/** distinct glyph outlines (character, size, depth) per frame (EVL009): the page extrudes each once, tens of
 * milliseconds apiece at full detail, and draws every character as an instance of its outline */
export const MAX_GLYPH_OUTLINES = 256;
/** points of path(...) per frame (EVL010): each becomes about ten vertices of the extruded, bevelled mesh */
export const MAX_PATH_POINTS = 10_000;
/** blobs of metaballs(...) per frame (EVL011): each is raymarched at every pixel (the shader takes 24 per body) */
export const MAX_METABALLS = 96;

/** shapes (2D layers and solids) per frame (EVL012): the page builds a mesh and a material for each, about 1 ms apiece */
export const MAX_SHAPES = 4096;
const SHAPES = new Set(['rect', 'circle', 'sphere', 'extrude', 'svg', 'vectorize', 'metaballs', 'image']);

export interface DrawingCost {
  shapes: number;
  /** distinct outlines (character, size, depth) the page builds */
  glyphOutlines: number;
  /** vertices the glyphs draw at most, at the sampling they are built with (glyph-detail.ts) */
  glyphVertices: number;
  /** vertices the glyphs would draw at most at the reference's sampling (built so when it fits the budget) */
  glyphVerticesFull: number;
  pathPoints: number;
  metaballs: number;
}

export interface DrawingLimitHit {
  code: 'EVL009' | 'EVL010' | 'EVL011' | 'EVL012';
  message: string;
  help: string;
}

/** Counts what the value asks the page to build; stops once a limit is passed. */
export function drawingCost(value: Value): DrawingCost {
  const c: DrawingCost = {
    shapes: 0,
    glyphOutlines: 0,
    glyphVertices: 0,
    glyphVerticesFull: 0,
    pathPoints: 0,
    metaballs: 0,
  };
  /** vertices at the proportional sampling, which the frame's text gets when it does not fit at the full one */
  let coarse = 0;
  const outlines = new Set<string>();
  /** the depth each text.glyph is extruded with (the outline depends on it), from its extrude(...) */
  const depthOf = new Map<Value, string>();
  const stack: Value[] = [value];
  while (stack.length) {
    const v = stack.pop()!;
    switch (v.kind) {
      case 'constructed':
        if (SHAPES.has(v.name)) c.shapes++;
        if (v.name === 'extrude') {
          const shape = namedField(v, 'shape') ?? positionalField(v, 0);
          if (shape) depthOf.set(shape, JSON.stringify(namedField(v, 'depth') ?? null));
        }
        if (v.name === 'text.glyph') {
          const t = positionalField(v, 0) ?? namedField(v, 'text');
          if (t && t.kind === 'string') {
            const size = namedField(v, 'size');
            const sizePx = size && size.kind === 'number' && Number.isFinite(size.value) ? size.value : null;
            const full = glyphVertexBound(sizePx, true);
            const perChar = glyphVertexBound(sizePx, false);
            const key = `${sizePx}|${depthOf.get(v) ?? 'null'}|`;
            for (const ch of stripQuotes(t.raw)) {
              c.glyphVerticesFull += full;
              coarse += perChar;
              if (!outlines.has(key + ch)) {
                outlines.add(key + ch);
                c.glyphOutlines++;
              }
              if (coarse > MAX_GLYPH_VERTICES) break;
            }
            c.glyphVertices = glyphsFitInFull(c.glyphVerticesFull) ? c.glyphVerticesFull : coarse;
            if (coarse > MAX_GLYPH_VERTICES) return c;
          }
        } else if (v.name === 'path') {
          const pts = namedField(v, 'points') ?? positionalField(v, 0);
          if (pts && pts.kind === 'array') c.pathPoints += pts.elems.length;
        } else if (v.name === 'metaballs') {
          const blobs = namedField(v, 'blobs') ?? positionalField(v, 0);
          if (blobs && blobs.kind === 'array') c.metaballs += blobs.elems.length;
        }
        if (
          c.shapes > MAX_SHAPES ||
          c.glyphOutlines > MAX_GLYPH_OUTLINES ||
          c.glyphVertices > MAX_GLYPH_VERTICES ||
          c.pathPoints > MAX_PATH_POINTS ||
          c.metaballs > MAX_METABALLS
        )
          return c;
        for (const f of v.fields) stack.push(f.value);
        break;
      case 'record':
        for (const f of v.fields) stack.push(f.value);
        break;
      case 'array':
        for (const e of v.elems) stack.push(e);
        break;
    }
  }
  return c;
}

/** The first drawing limit the value passes, or null. */
export function drawingLimitHit(value: Value): DrawingLimitHit | null {
  const c = drawingCost(value);
  if (c.shapes > MAX_SHAPES) {
    return {
      code: 'EVL012',
      message: `the frame draws more than ${MAX_SHAPES} shapes`,
      help: `draw at most ${MAX_SHAPES} shapes (rect, circle, image, solids) per frame`,
    };
  }
  if (c.glyphOutlines > MAX_GLYPH_OUTLINES) {
    return {
      code: 'EVL009',
      message: `the frame builds more than ${MAX_GLYPH_OUTLINES} glyph outlines (distinct characters at a size and depth)`,
      help: `use at most ${MAX_GLYPH_OUTLINES} distinct characters, sizes and depths of text.glyph per frame`,
    };
  }
  if (c.glyphVertices > MAX_GLYPH_VERTICES) {
    return {
      code: 'EVL009',
      message: `the frame's glyphs draw more than ${MAX_GLYPH_VERTICES / 1e6} million vertices`,
      help: 'draw less text per frame, or smaller text (in a frame with this much text, a glyph under 96 px is built with fewer vertices)',
    };
  }
  if (c.pathPoints > MAX_PATH_POINTS) {
    return {
      code: 'EVL010',
      message: `the frame's path meshes have more than ${MAX_PATH_POINTS} points`,
      help: `give path(...) at most ${MAX_PATH_POINTS} points per frame in all`,
    };
  }
  if (c.metaballs > MAX_METABALLS) {
    return {
      code: 'EVL011',
      message: `the frame melts more than ${MAX_METABALLS} metaball blobs`,
      help: `use at most ${MAX_METABALLS} blobs per frame in all (24 per metaballs body)`,
    };
  }
  return null;
}
