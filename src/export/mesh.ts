// SVG document → binary glTF solid (service.md "POST /v1/mesh"): the same extrusion as the viewer's svg()
// (viewer.md §5.6.4, newest runner), in mesh units: `size` tall, `depth` thick, centred at the origin.
import * as THREE from 'three';
import { svgPolygons, extrudePolygons, type Polygon } from '../../viewer/src/meshes/svg.js';
import { newestRunner } from '../../viewer/src/meshes/constants.js';
import { sniffImage } from '../contract/mime.js';
import { ExportError } from './errors.js';
import { EXPORT_LIMITS } from './limits.js';
import { writeGlb } from './glb.js';
import { CODE } from '../contract/error-codes.js';

export interface MeshParams {
  /** thickness along z (default 20) */
  depth?: number;
  /** height of the bounding box (default 100) */
  size?: number;
  /** edge bevel (default 0). As in the viewer (QUIRK Q12), its xy part is applied in SVG user units. */
  round?: number;
}

export const MESH_DEFAULTS = { depth: 20, size: 100, round: 0 } as const;

export interface MeshLimits {
  /** Most vertices the extruded solid may have (default EXPORT_LIMITS.maxVertices). */
  maxVertices?: number;
}

/** ExtrudeGeometry (steps 1) repeats its side walls once per layer: 1 flat, 1 + 2·6 with the bevel. */
const BEVEL_SEGMENTS = 6;

function checkParams(p: MeshParams): { depth: number; size: number; round: number } {
  const depth = p.depth ?? MESH_DEFAULTS.depth,
    size = p.size ?? MESH_DEFAULTS.size,
    round = p.round ?? MESH_DEFAULTS.round;
  if (!(Number.isFinite(depth) && depth > 0))
    throw new ExportError(CODE.bad_params, `depth must be a number above 0 (got ${depth})`);
  if (!(Number.isFinite(size) && size > 0))
    throw new ExportError(CODE.bad_params, `size must be a number above 0 (got ${size})`);
  if (!(Number.isFinite(round) && round >= 0))
    throw new ExportError(CODE.bad_params, `round must be a number ≥ 0 (got ${round})`);
  return { depth, size, round };
}

/** A lower bound of the vertices ExtrudeGeometry will make: its side walls alone are 6 vertices per contour
 *  edge per layer. Checked before extruding, so a drawing far over the cap costs no triangulation. */
function wallVertexLowerBound(polys: Polygon[], bevelled: boolean): number {
  const layers = bevelled ? 1 + 2 * BEVEL_SEGMENTS : 1;
  let edges = 0;
  for (const p of polys) {
    if (p.outer.length < 3) continue;
    edges += p.outer.length - 1; // the extruder may drop a repeated end point
    for (const h of p.holes) if (h.length >= 3) edges += h.length - 1;
  }
  return 6 * edges * layers;
}

/** Largest |coordinate| (SVG units) we extrude. The solid is built in float32 (about 3.4e38 at most), and
 *  the extruder adds and halves coordinates, so far smaller numbers already turn into NaN there; no drawing
 *  needs more than this. */
const MAX_COORDINATE = 1e15;

/** NaN, ±Infinity or huge numbers anywhere (1e400, transform="scale(1e30)") would reach earcut and the GLB. */
function allInRange(polys: Polygon[]): boolean {
  for (const p of polys)
    for (const ring of [p.outer, ...p.holes]) {
      for (const v of ring) if (!(Math.abs(v.x) <= MAX_COORDINATE && Math.abs(v.y) <= MAX_COORDINATE)) return false;
    }
  return true;
}

function tooMany(count: number, max: number, estimate: boolean): ExportError {
  return new ExportError(
    CODE.too_many_vertices,
    `the solid would have ${estimate ? 'at least ' : ''}${count} vertices, more than the limit of ${max}: simplify the SVG (fewer points or curves) or use round 0`,
  );
}

/** The extruded solid (three.js geometry, non-indexed, flat normals), `size` tall, `depth` thick, centred. */
export function svgSolid(svg: string, params: MeshParams = {}, limits: MeshLimits = {}): THREE.BufferGeometry {
  const { depth, size, round } = checkParams(params);
  const maxVertices = limits.maxVertices ?? EXPORT_LIMITS.maxVertices;
  if (typeof svg !== 'string' || sniffImage(Buffer.from(svg.slice(0, 4096), 'utf8')) !== 'image/svg+xml') {
    throw new ExportError(
      CODE.bad_svg,
      'not an SVG document: expected an <svg> root element (after an optional XML declaration, comments or doctype)',
    );
  }
  // svgGeometry(svg, { runner: newest }) is exactly extrudePolygons(svgPolygons(svg), …) (viewer/src/meshes/svg.ts);
  // we call its two halves so that a parse failure, an empty drawing and an oversized one each get their code.
  const polys = svgPolygons(svg);
  if (!polys)
    throw new ExportError(CODE.bad_svg, 'the SVG could not be parsed (malformed XML or an SVG the loader rejects)');
  if (polys.length === 0)
    throw new ExportError(CODE.empty_svg, 'the SVG has nothing to extrude: no filled shape and no stroked path');
  if (!allInRange(polys))
    throw new ExportError(
      CODE.bad_svg,
      `the SVG has coordinates that are not finite numbers or beyond ±${MAX_COORDINATE.toExponential()} (after its transforms)`,
    );
  const opts = { depthPx: depth, sizePx: size, roundPx: round, p2w: 1, runner: newestRunner() };
  const bevelled = Math.min(round, depth / 2 - 1e-4) > 1e-6; // extrudePolygons' own clamp (§5.6.4 step 4)
  const lower = wallVertexLowerBound(polys, bevelled);
  if (lower > maxVertices) throw tooMany(lower, maxVertices, true);
  let geo: THREE.BufferGeometry | null;
  try {
    geo = extrudePolygons(polys, opts);
  } catch (e) {
    // three.js refusing a shape: the SVG's fault, not a crash of ours
    throw new ExportError(CODE.bad_svg, `the SVG could not be extruded: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!geo)
    throw new ExportError(CODE.empty_svg, 'the SVG has nothing to extrude: every outline has fewer than 3 points');
  const count = geo.getAttribute('position').count;
  if (count > maxVertices) {
    geo.dispose();
    throw tooMany(count, maxVertices, false);
  }
  geo.computeBoundingBox();
  const bb = geo.boundingBox!;
  const w = bb.max.x - bb.min.x,
    h = bb.max.y - bb.min.y;
  if (![bb.min.x, bb.min.y, bb.min.z, bb.max.x, bb.max.y, bb.max.z].every(Number.isFinite)) {
    throw new ExportError(CODE.bad_svg, 'the SVG has coordinates that are not finite numbers');
  }
  if (!(w > 0 && h > 0))
    throw new ExportError(CODE.empty_svg, 'the SVG has nothing to extrude: its shapes have no area');
  // Centred at the origin: with a bevel the viewer leaves the solid offset by −round in z (QUIRK Q13), and a
  // drawing under 1e-4 units tall is not scaled to `size` by the viewer's clamp; a mesh file wants neither.
  geo.translate(-(bb.min.x + bb.max.x) / 2, -(bb.min.y + bb.max.y) / 2, -(bb.min.z + bb.max.z) / 2);
  if (Math.abs(h - size) > 1e-9 * size) geo.scale(size / h, size / h, 1);
  geo.computeBoundingBox();
  return geo;
}

/** Binary glTF 2.0 of svgSolid(svg, params): one mesh, one node, one scene, a white default material. */
export function svgToGlb(svg: string, params: MeshParams = {}, limits: MeshLimits = {}): Buffer {
  const geo = svgSolid(svg, params, limits);
  try {
    return writeGlb(geo, { name: 'svg' });
  } catch (e) {
    // every triangle of zero area (e.g. only hairline strokes of width 0): nothing a viewer could show
    if (e instanceof ExportError && e.code === CODE.empty_mesh)
      throw new ExportError(CODE.empty_svg, 'the SVG has nothing to extrude: its shapes have no area');
    throw e;
  } finally {
    geo.dispose();
  }
}
