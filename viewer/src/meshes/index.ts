// Public entry of the geometry builders (viewer/src/meshes). Pure: no DOM, no fetch.
export type * from './types.js';
export { parseFont } from './font.js';
export { glyphGeometry } from './glyph.js';
export {
  glyphLayout,
  glyphOutline,
  instanceMatrix,
  runPlacement,
  runRadius,
  runInstancesGeometry,
  PEN_ATTRIBUTE,
  PEN_SHIFT_ATTRIBUTE,
  type PlacedChar,
} from './glyph-run.js';
export { pathGeometry } from './path.js';
export {
  metaballsObject,
  metaballField,
  metaballMarch,
  metaballRayMayHit,
  metaballMissBound,
  srgbToLinearChannel,
  METABALL_DEFAULTS,
  METABALL_QUAD_HEIGHT,
  METABALL_MISS_MARGIN,
} from './metaballs.js';
export { svgGeometry, svgPolygons, strokeOutline, extrudePolygons } from './svg.js';
export { parseSvg } from './svg-parse.js';
export { traceToSvg, trace, vectorizeGeometry, VECTORIZE_DEFAULTS } from './vectorize.js';
export { rasterAtWorkingSize } from './dom-raster.js'; // browser only (uses a canvas when called)
