// svg(source, depth:, size:, round:) — viewer.md §5.6.4 (runner 0.0.10+), legacy runners per §9.
import * as THREE from 'three';
import { SVGLoader } from 'three/examples/jsm/loaders/SVGLoader.js';
import type { SvgOptions } from './types.js';
import { runnerAtLeast } from './constants.js';
import { svgGeometryLegacy } from './svg-legacy.js';
import { parseSvg } from './svg-parse.js';

const DIVISIONS = 24;

export interface Polygon {
  outer: THREE.Vector2[];
  holes: THREE.Vector2[][];
}

function signedArea(pts: THREE.Vector2[]): number {
  let s = 0;
  for (let i = 0; i < pts.length; i++) {
    const p = pts[i],
      q = pts[(i + 1) % pts.length];
    s += p.x * q.y - q.x * p.y;
  }
  return s / 2;
}

/** Round cap: the 7 inner points of an arc about c from a to b (8 equal steps) bulging towards `bulge`. */
function capArc(
  c: THREE.Vector2,
  a: THREE.Vector2,
  b: THREE.Vector2,
  bulge: THREE.Vector2,
  hw: number,
): THREE.Vector2[] {
  const a0 = Math.atan2(a.y - c.y, a.x - c.x);
  const a1 = Math.atan2(b.y - c.y, b.x - c.x);
  let delta = a1 - a0;
  while (delta <= -Math.PI) delta += 2 * Math.PI;
  while (delta > Math.PI) delta -= 2 * Math.PI;
  const mid = a0 + delta / 2;
  if (Math.cos(mid) * bulge.x + Math.sin(mid) * bulge.y < 0) delta += delta > 0 ? -2 * Math.PI : 2 * Math.PI;
  const out: THREE.Vector2[] = [];
  for (let j = 1; j < 8; j++) {
    const t = a0 + (delta * j) / 8;
    out.push(new THREE.Vector2(c.x + hw * Math.cos(t), c.y + hw * Math.sin(t)));
  }
  return out;
}

/** Stroke-to-outline of §5.6.4: mitred joins (clamped at 4·hw), round caps, closed paths become bands. */
export function strokeOutline(input: THREE.Vector2[], hw: number, closed: boolean): Polygon | null {
  const P: THREE.Vector2[] = [];
  for (const p of input) if (P.length === 0 || P[P.length - 1].distanceTo(p) >= 1e-6) P.push(p.clone());
  if (closed && P.length > 1 && P[P.length - 1].distanceTo(P[0]) < 1e-3) P.pop();
  const n = P.length;
  if (n < 2) return null;
  const segCount = closed ? n : n - 1;
  const normals: THREE.Vector2[] = [];
  const dirs: THREE.Vector2[] = [];
  for (let i = 0; i < segCount; i++) {
    const a = P[i],
      b = P[(i + 1) % n];
    const d = new THREE.Vector2(b.x - a.x, b.y - a.y);
    const len = d.length();
    if (len > 0) d.divideScalar(len);
    dirs.push(d);
    normals.push(new THREE.Vector2(-d.y, d.x));
  }
  const L: THREE.Vector2[] = [],
    R: THREE.Vector2[] = [];
  for (let i = 0; i < n; i++) {
    let nIn: THREE.Vector2, nOut: THREE.Vector2;
    if (closed) {
      nIn = normals[(i - 1 + n) % n];
      nOut = normals[i];
    } else if (i === 0) {
      nIn = nOut = normals[0];
    } else if (i === n - 1) {
      nIn = nOut = normals[n - 2];
    } else {
      nIn = normals[i - 1];
      nOut = normals[i];
    }
    const m = new THREE.Vector2(nIn.x + nOut.x, nIn.y + nOut.y);
    let off: THREE.Vector2;
    if (m.lengthSq() < 1e-9) off = nOut.clone();
    else {
      m.normalize();
      off = m.divideScalar(Math.max(0.25, m.dot(nOut)));
    }
    L.push(new THREE.Vector2(P[i].x + hw * off.x, P[i].y + hw * off.y));
    R.push(new THREE.Vector2(P[i].x - hw * off.x, P[i].y - hw * off.y));
  }
  if (closed) {
    if (n < 3) return null;
    const [outer, inner] = Math.abs(signedArea(L)) >= Math.abs(signedArea(R)) ? [L, R] : [R, L];
    return { outer, holes: [inner.slice().reverse()] };
  }
  const last = dirs[dirs.length - 1],
    first = dirs[0];
  const loop: THREE.Vector2[] = [...L];
  loop.push(...capArc(P[n - 1], L[n - 1], R[n - 1], last, hw));
  for (let i = n - 1; i >= 0; i--) loop.push(R[i]);
  loop.push(...capArc(P[0], R[0], L[0], first.clone().negate(), hw));
  return { outer: loop, holes: [] };
}

/** Steps 1–3 of §5.6.4: SVG paths → outline polygons (SVG user units, y down). null on a parse failure. */
export function svgPolygons(svg: string): Polygon[] | null {
  const data = parseSvg(svg);
  if (!data) return null;
  const polys: Polygon[] = [];
  for (const path of data.paths) {
    const style = (path.userData?.style ?? {}) as { fill?: string; stroke?: string; strokeWidth?: number };
    const filled = style.fill !== undefined && style.fill !== 'none';
    const stroked = style.stroke !== undefined && style.stroke !== 'none';
    if (filled || !stroked) {
      for (const shape of SVGLoader.createShapes(path)) {
        const { shape: outer, holes } = shape.extractPoints(DIVISIONS);
        if (outer.length < 3) continue;
        polys.push({ outer, holes: holes.filter((h) => h.length >= 3) });
      }
    }
    if (stroked) {
      const w = typeof style.strokeWidth === 'number' && Number.isFinite(style.strokeWidth) ? style.strokeWidth : 1;
      const hw = w / 2;
      for (const sub of path.subPaths) {
        const pts = sub.getPoints(DIVISIONS);
        if (pts.length < 2) continue;
        const closed = pts[0].distanceTo(pts[pts.length - 1]) < 1e-3;
        const poly = strokeOutline(pts, hw, closed);
        if (poly) polys.push(poly);
      }
    }
  }
  return polys;
}

/** Steps 3–5: polygons (SVG units) → one extruded, normalised geometry. null when there is nothing. */
export function extrudePolygons(polys: Polygon[], o: SvgOptions): THREE.BufferGeometry | null {
  const flip = (pts: THREE.Vector2[]) => pts.map((p) => new THREE.Vector2(p.x, -p.y));
  const shapes: THREE.Shape[] = [];
  for (const poly of polys) {
    if (poly.outer.length < 3) continue;
    const s = new THREE.Shape(flip(poly.outer));
    for (const h of poly.holes) if (h.length >= 3) s.holes.push(new THREE.Path(flip(h)));
    shapes.push(s);
  }
  if (shapes.length === 0) return null;
  const d = o.depthPx * o.p2w;
  const sh = o.sizePx * o.p2w;
  const r0 = o.roundPx * o.p2w;
  const r = Math.min(Math.max(r0, 0), d / 2 - 1e-4);
  const geo =
    r > 1e-6
      ? new THREE.ExtrudeGeometry(shapes, {
          depth: d - 2 * r,
          bevelEnabled: true,
          bevelThickness: r,
          bevelSize: r,
          bevelOffset: 0,
          bevelSegments: 6,
          steps: 1,
        })
      : new THREE.ExtrudeGeometry(shapes, { depth: d, bevelEnabled: false, steps: 1 });
  geo.computeBoundingBox();
  const bb = geo.boundingBox!;
  const h = Math.max(1e-4, bb.max.y - bb.min.y);
  geo.translate(-(bb.min.x + bb.max.x) / 2, -(bb.min.y + bb.max.y) / 2, -d / 2);
  geo.scale(sh / h, sh / h, 1);
  geo.computeBoundingBox();
  return geo;
}

export function svgGeometry(svg: string, o: SvgOptions): THREE.BufferGeometry | THREE.Group | null {
  if (!runnerAtLeast(o.runner, '0.0.5')) return null; // no svg() before 0.0.5: draws nothing
  if (!runnerAtLeast(o.runner, '0.0.10')) return svgGeometryLegacy(svg, o);
  const polys = svgPolygons(svg);
  if (!polys) return null;
  return extrudePolygons(polys, o);
}
