// How finely a glyph outline is built at a size (viewer.md §5.6.1 samples every curve with 32 segments and bevels
// with 4), shared by the drawing page, which builds it, and the drawing limits, which count what it costs (EVL009).
// Text of 96 design px and more keeps the reference's sampling to the vertex; smaller text is sampled in proportion
// to its size, so a segment stays about a design pixel or shorter (at 16 px a curve of 32 segments has segments of
// a fiftieth of a pixel, and a 16 px page of text would be 20,000 vertices a character).

/** Sizes (design px) from which a glyph is sampled as the reference samples it. */
export const GLYPH_FULL_DETAIL_PX = 96;
const CURVE_SEGMENTS = 32;
const BEVEL_SEGMENTS = 4;

export interface GlyphDetail {
  curveSegments: number;
  bevelSegments: number;
}

/** Sampling of a glyph at `sizePx` (null: auto-fit, which is large: always the reference's). */
export function glyphDetail(sizePx: number | null): GlyphDetail {
  if (sizePx === null || !Number.isFinite(sizePx) || sizePx >= GLYPH_FULL_DETAIL_PX)
    return { curveSegments: CURVE_SEGMENTS, bevelSegments: BEVEL_SEGMENTS };
  const f = Math.max(0, sizePx) / GLYPH_FULL_DETAIL_PX;
  return {
    curveSegments: Math.max(4, Math.ceil(CURVE_SEGMENTS * f)),
    bevelSegments: Math.max(1, Math.ceil(BEVEL_SEGMENTS * f)),
  };
}
