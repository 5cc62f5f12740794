// extrude(path(points: ...), depth:) — viewer.md §5.6.2.
import * as THREE from 'three';

export function pathGeometry(points: [number, number][], depthPx: number, p2w: number): THREE.BufferGeometry | null {
  const pts = points.filter((p) => Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1]));
  if (pts.length < 3) return null; // "need ≥3 points"
  const shape = new THREE.Shape(pts.map(([x, y]) => new THREE.Vector2(x * p2w, y * p2w)));
  const d = depthPx * p2w;
  const bevel = Math.max(0.1 * d, 0.5 * p2w);
  const geo = new THREE.ExtrudeGeometry(shape, {
    depth: d,
    bevelEnabled: true,
    bevelThickness: bevel,
    bevelSize: bevel,
    bevelSegments: 4,
    curveSegments: 1,
  });
  geo.center(); // QUIRK Q10
  return geo;
}
