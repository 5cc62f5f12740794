// How finely a glyph outline is built at a size (viewer.md §5.6.1 samples every curve with 32 segments and bevels
// with 4), shared by the drawing page, which builds it, and the drawing limits, which count what it costs (EVL009).
// A frame's text is built with the reference's sampling whenever all of it fits the vertex budget at that sampling;
// only a frame whose text would not fit has its text under 96 design px sampled in proportion to its size, so a
// segment stays about a design pixel or shorter (at 16 px a curve of 32 segments has segments of a fiftieth of a
// pixel, and a 16 px page of text would be 20,000 vertices a character).

/** Sizes (design px) from which a glyph is always sampled as the reference samples it. */
export const GLYPH_FULL_DETAIL_PX = 96;
const CURVE_SEGMENTS = 32;
const BEVEL_SEGMENTS = 4;
/** vertices the frame's glyphs may draw (EVL009), counted as if every character were the font's largest outline at
 * its sampling: a 16 px page of 4,000 characters counts 23.8 million sampled in proportion (it draws about 6), one
 * full-detail character 95,000, so this is about 330 characters at the reference's sampling */
export const MAX_GLYPH_VERTICES = 32_000_000;
/** vertices of the largest outline of the font per curve segment and bevel layer (measured: 75,252 at 32 × 9) */
const VERTICES_PER_SEGMENT_LAYER = 330;

export interface GlyphDetail {
  curveSegments: number;
  bevelSegments: number;
}

const FULL: GlyphDetail = { curveSegments: CURVE_SEGMENTS, bevelSegments: BEVEL_SEGMENTS };

/**
 * Sampling of a glyph at `sizePx` (null: auto-fit, which is large): the reference's when `full` (the frame's text fits
 * the budget at it, glyphsFitInFull), else in proportion under GLYPH_FULL_DETAIL_PX.
 */
export function glyphDetail(sizePx: number | null, full: boolean): GlyphDetail {
  if (full || sizePx === null || !Number.isFinite(sizePx) || sizePx >= GLYPH_FULL_DETAIL_PX) return FULL;
  const f = Math.max(0, sizePx) / GLYPH_FULL_DETAIL_PX;
  return {
    curveSegments: Math.max(4, Math.ceil(CURVE_SEGMENTS * f)),
    bevelSegments: Math.max(1, Math.ceil(BEVEL_SEGMENTS * f)),
  };
}

/** what one character of text at `sizePx` may draw, at most, at the sampling glyphDetail gives */
export function glyphVertexBound(sizePx: number | null, full: boolean): number {
  const d = glyphDetail(sizePx, full);
  return VERTICES_PER_SEGMENT_LAYER * d.curveSegments * (2 * d.bevelSegments + 1);
}

/** Whether a frame whose glyphs draw `fullDetailVertices` at the reference's sampling is built at it. */
export function glyphsFitInFull(fullDetailVertices: number): boolean {
  return fullDetailVertices <= MAX_GLYPH_VERTICES;
}
