// svg() before runner 0.0.10 (viewer.md §9): flat triangulation of fills and three.js stroke ribbons,
// then "thickened" into a solid.
//   0.0.5/0.0.6: all pieces merged, centred on their joint box, y-flipped, scaled to `size`; caps at ±d/2;
//                side walls along directed edges with no reverse twin in the merged mesh.
//   0.0.7:       thickening per piece; a wall edge is an (undirected) edge used by exactly one triangle of
//                its piece, vertices welded at 1e-5; walls emitted in both windings.
// No bevel and no `round` in either.
import * as THREE from 'three';
import { SVGLoader } from 'three/examples/jsm/loaders/SVGLoader.js';
import type { SvgOptions } from './types.js';
import { parseSvg } from './svg-parse.js';
import { runnerAtLeast } from './constants.js';

type Tri = [number, number, number, number, number, number]; // ax ay bx by cx cy (SVG units)

function trianglesOf(g: THREE.BufferGeometry): Tri[] {
  const pos = g.getAttribute('position');
  const idx = g.getIndex();
  const n = idx ? idx.count : pos.count;
  const at = (i: number) => (idx ? idx.getX(i) : i);
  const out: Tri[] = [];
  for (let t = 0; t + 2 < n; t += 3) {
    const a = at(t),
      b = at(t + 1),
      c = at(t + 2);
    out.push([pos.getX(a), pos.getY(a), pos.getX(b), pos.getY(b), pos.getX(c), pos.getY(c)]);
  }
  return out;
}

/** Flat pieces of the old algorithm: one per filled path (16 curve divisions), one per stroked sub-path
 *  (three.js stroke builder: the SVG's joins, caps and width, 12 arc divisions for joins and caps).
 *  Stroke centrelines are sampled with 24 divisions per curve (48 per arc): §9 says "default sampling,
 *  12 divisions", but the reference frames agree far better with 24 (plinken-svg@0: pixels off by more
 *  than 16/channel 0.24 % → 0.085 %; @1.5, seen edge-on: 10 % → 0.02 %), and worse with 32 or 48. */
export function legacyPieces(svg: string): Tri[][] | null {
  const data = parseSvg(svg);
  if (!data) return null;
  const pieces: Tri[][] = [];
  for (const path of data.paths) {
    const style = (path.userData?.style ?? {}) as { fill?: string; stroke?: string };
    if (style.fill !== undefined && style.fill !== 'none') {
      const shapes = SVGLoader.createShapes(path);
      if (shapes.length) {
        const tris = trianglesOf(new THREE.ShapeGeometry(shapes, 16));
        if (tris.length) pieces.push(tris);
      }
    }
    if (style.stroke !== undefined && style.stroke !== 'none') {
      for (const sub of path.subPaths) {
        const pts = sub.getPoints(24);
        // A sampled full circle ends 1e-16 away from its start, so three.js's builder would see an open
        // path and put two overlapping round caps there (a visible double-blended disc on translucent
        // material). The reference frame (plinken-svg@0.0, the head ring) shows a closed ring: snap the end.
        if (pts.length > 2 && pts[0].distanceTo(pts[pts.length - 1]) < 1e-3) pts[pts.length - 1] = pts[0].clone();
        const g = SVGLoader.pointsToStroke(pts, path.userData!.style);
        if (g) {
          const tris = trianglesOf(g);
          if (tris.length) pieces.push(tris);
        }
      }
    }
  }
  return pieces;
}

/** Output triangles, grown in a plain number array (flattened into a Float32Array at the end). */
class Builder {
  readonly pos: number[] = [];
  tri(ax: number, ay: number, az: number, bx: number, by: number, bz: number, cx: number, cy: number, cz: number) {
    this.pos.push(ax, ay, az, bx, by, bz, cx, cy, cz);
  }
}

/** CCW (facing +z) copy of a y-up triangle. */
function ccw(t: Tri): Tri {
  const area = (t[2] - t[0]) * (t[5] - t[1]) - (t[4] - t[0]) * (t[3] - t[1]);
  return area >= 0 ? t : [t[0], t[1], t[4], t[5], t[2], t[3]];
}

/** Front caps (facing +z at z = +h), then back caps (facing −z at z = −h). Caps go into the buffer before
 *  any wall: with a translucent material the front cap then hides the walls inside the solid by depth, as
 *  in the reference frames (plinken-svg: no seams where round caps and joins overlap a ribbon). */
function caps(out: Builder, tris: Tri[], h: number) {
  for (const t of tris) out.tri(t[0], t[1], h, t[2], t[3], h, t[4], t[5], h);
  for (const t of tris) out.tri(t[0], t[1], -h, t[4], t[5], -h, t[2], t[3], -h);
}

/** Wall below the directed edge a→b of a CCW triangle: faces outward (to the right of a→b). */
function wall(out: Builder, ax: number, ay: number, bx: number, by: number, h: number, both: boolean) {
  out.tri(ax, ay, -h, bx, by, -h, bx, by, h);
  out.tri(ax, ay, -h, bx, by, h, ax, ay, h);
  if (both) {
    out.tri(ax, ay, -h, bx, by, h, bx, by, -h);
    out.tri(ax, ay, -h, ax, ay, h, bx, by, h);
  }
}

/** Vertex ids by exact (or snapped) coordinates: nested maps, no string keys. */
class VertexIds {
  private readonly m = new Map<number, Map<number, number>>();
  count = 0;
  id(x: number, y: number): number {
    let row = this.m.get(x);
    if (!row) {
      row = new Map();
      this.m.set(x, row);
    }
    let v = row.get(y);
    if (v === undefined) {
      v = this.count++;
      row.set(y, v);
    }
    return v;
  }
}

export function svgGeometryLegacy(svg: string, o: SvgOptions): THREE.BufferGeometry | null {
  const pieces = legacyPieces(svg);
  if (!pieces || pieces.length === 0) return null;
  // joint box (SVG units, y down)
  let x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity;
  for (const p of pieces)
    for (const t of p)
      for (let k = 0; k < 6; k += 2) {
        x0 = Math.min(x0, t[k]);
        x1 = Math.max(x1, t[k]);
        y0 = Math.min(y0, t[k + 1]);
        y1 = Math.max(y1, t[k + 1]);
      }
  const s = (o.sizePx * o.p2w) / Math.max(1e-4, y1 - y0);
  const cx = (x0 + x1) / 2,
    cy = (y0 + y1) / 2;
  const xf = (t: Tri): Tri =>
    ccw([(t[0] - cx) * s, -(t[1] - cy) * s, (t[2] - cx) * s, -(t[3] - cy) * s, (t[4] - cx) * s, -(t[5] - cy) * s]);
  const h = (o.depthPx * o.p2w) / 2;
  const out = new Builder();
  const perPiece = runnerAtLeast(o.runner, '0.0.7');
  if (!perPiece) {
    // 0.0.5/0.0.6: one merged mesh; a wall under every directed edge whose reverse is not an edge
    const tris = pieces.flat().map(xf);
    const ids = new VertexIds();
    const vid = tris.map((t) => [ids.id(t[0], t[1]), ids.id(t[2], t[3]), ids.id(t[4], t[5])]);
    const M = ids.count;
    const directed = new Set<number>();
    for (const v of vid) for (let e = 0; e < 3; e++) directed.add(v[e] * M + v[(e + 1) % 3]);
    caps(out, tris, h);
    tris.forEach((t, i) => {
      const v = vid[i];
      for (let e = 0; e < 3; e++) {
        const a = e * 2,
          b = ((e + 1) % 3) * 2;
        if (!directed.has(v[(e + 1) % 3] * M + v[e])) wall(out, t[a], t[a + 1], t[b], t[b + 1], h, false);
      }
    });
  } else {
    // 0.0.7+: per piece; vertices welded at 1e-5; a wall under every edge used by exactly one triangle
    const W = 1e-5;
    for (const piece of pieces) {
      const tris = piece.map(xf);
      const ids = new VertexIds();
      const vid = tris.map((t) => [0, 2, 4].map((k) => ids.id(Math.round(t[k] / W), Math.round(t[k + 1] / W))));
      const M = ids.count;
      const ekey = (a: number, b: number) => (a < b ? a * M + b : b * M + a);
      const count = new Map<number, number>();
      for (const v of vid)
        for (let e = 0; e < 3; e++) {
          const k = ekey(v[e], v[(e + 1) % 3]);
          count.set(k, (count.get(k) ?? 0) + 1);
        }
      caps(out, tris, h);
      tris.forEach((t, i) => {
        const v = vid[i];
        for (let e = 0; e < 3; e++) {
          const a = e * 2,
            b = ((e + 1) % 3) * 2;
          if (count.get(ekey(v[e], v[(e + 1) % 3])) === 1) wall(out, t[a], t[a + 1], t[b], t[b + 1], h, true);
        }
      });
    }
  }
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.Float32BufferAttribute(out.pos, 3));
  geo.computeVertexNormals();
  geo.computeBoundingBox();
  return geo;
}
