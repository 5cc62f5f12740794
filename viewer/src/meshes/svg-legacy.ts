// svg() before runner 0.0.10 (viewer.md §9). Placeholder routing: see svgGeometryLegacy.
import * as THREE from 'three';
import type { SvgOptions } from './types';
import { extrudePolygons, svgPolygons } from './svg';

/** Runners 0.0.5–0.0.7. Until the flat-mesh thickening of §9 is written, these runners get the 0.0.10
 *  outline algorithm with round = 0 (0.0.5–0.0.7 have no `round`). */
export function svgGeometryLegacy(svg: string, o: SvgOptions): THREE.BufferGeometry | THREE.Group | null {
  const polys = svgPolygons(svg);
  if (!polys) return null;
  return extrudePolygons(polys, { ...o, roundPx: 0 });
}
