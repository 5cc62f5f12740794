// Public entry of the geometry builders (viewer/src/meshes). Pure: no DOM, no fetch.
export type * from './types';
export { parseFont } from './font';
export { glyphGeometry } from './glyph';
export { pathGeometry } from './path';
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
} from './metaballs';
export { svgGeometry, svgPolygons, strokeOutline, extrudePolygons } from './svg';
export { parseSvg } from './svg-parse';
export { traceToSvg, trace, vectorizeGeometry, VECTORIZE_DEFAULTS } from './vectorize';
export { rasterAtWorkingSize } from './dom-raster'; // browser only (uses a canvas when called)
