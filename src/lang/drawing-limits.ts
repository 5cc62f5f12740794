// What one frame may ask the drawing page to build (docs/durability.md, "Limits"). The evaluator's own limits
// (EVL006..EVL008) bound the work in Node; these bound what a small value can make the page build: a 60 KB string in
// text.glyph is one node here but hundreds of thousands of triangles there. Counted per use, like EVL008.

import { namedField, positionalField, stripQuotes, type Value } from './value.js';

/** characters of text.glyph per frame (EVL009): each is an extruded, bevelled outline of a few thousand vertices;
 * 1,000 took a minute to draw here, 256 take seconds (drawn once: the page keeps the mesh for the next frames) */
export const MAX_GLYPHS = 256;
/** points of path(...) per frame (EVL010): each becomes about ten vertices of the extruded, bevelled mesh */
export const MAX_PATH_POINTS = 10_000;
/** blobs of metaballs(...) per frame (EVL011): each is raymarched at every pixel (the shader takes 24 per body) */
export const MAX_METABALLS = 96;

/** shapes (2D layers and solids) per frame (EVL012): the page builds a mesh and a material for each, about 1 ms apiece */
export const MAX_SHAPES = 4096;
const SHAPES = new Set(['rect', 'circle', 'sphere', 'extrude', 'svg', 'vectorize', 'metaballs', 'image']);

export interface DrawingCost {
  shapes: number;
  glyphs: number;
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
  const c: DrawingCost = { shapes: 0, glyphs: 0, pathPoints: 0, metaballs: 0 };
  const stack: Value[] = [value];
  while (stack.length) {
    const v = stack.pop()!;
    switch (v.kind) {
      case 'constructed':
        if (SHAPES.has(v.name)) c.shapes++;
        if (v.name === 'text.glyph') {
          const t = positionalField(v, 0) ?? namedField(v, 'text');
          if (t && t.kind === 'string') c.glyphs += [...stripQuotes(t.raw)].length;
        } else if (v.name === 'path') {
          const pts = namedField(v, 'points') ?? positionalField(v, 0);
          if (pts && pts.kind === 'array') c.pathPoints += pts.elems.length;
        } else if (v.name === 'metaballs') {
          const blobs = namedField(v, 'blobs') ?? positionalField(v, 0);
          if (blobs && blobs.kind === 'array') c.metaballs += blobs.elems.length;
        }
        if (
          c.shapes > MAX_SHAPES ||
          c.glyphs > MAX_GLYPHS ||
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
  if (c.glyphs > MAX_GLYPHS) {
    return {
      code: 'EVL009',
      message: `the frame draws more than ${MAX_GLYPHS} glyphs (text.glyph characters)`,
      help: `draw at most ${MAX_GLYPHS} characters of text.glyph per frame`,
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
