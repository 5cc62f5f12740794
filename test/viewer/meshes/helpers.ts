import { readFileSync } from 'node:fs';
import * as THREE from 'three';
import { parseFont } from '../../../viewer/src/meshes/index.js';
import { createRequire } from 'node:module';
import { FONT_PACKAGE_FILE } from '../../../viewer/src/font-file.js';

export const FONT_PATH = createRequire(import.meta.url).resolve(FONT_PACKAGE_FILE);
export const VH = 12 * Math.tan((14 * Math.PI) / 180);
export const P2W = VH / 1080;

let cached: ReturnType<typeof parseFont> | null = null;
export function font() {
  if (!cached) {
    const b = readFileSync(FONT_PATH);
    cached = parseFont(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
  }
  return cached;
}

export function bbox(g: THREE.BufferGeometry | THREE.Object3D): THREE.Box3 {
  if ((g as THREE.BufferGeometry).isBufferGeometry) {
    const geo = g as THREE.BufferGeometry;
    geo.computeBoundingBox();
    return geo.boundingBox!.clone();
  }
  return new THREE.Box3().setFromObject(g as THREE.Object3D);
}

/** Sum of the xy areas of the triangles lying entirely in the plane z = zc (± eps): a cap's area. */
export function capArea(geo: THREE.BufferGeometry, zc: number, eps = 1e-6): number {
  const pos = geo.getAttribute('position');
  const idx = geo.getIndex();
  const n = idx ? idx.count : pos.count;
  const at = (i: number) => (idx ? idx.getX(i) : i);
  let area = 0;
  for (let t = 0; t < n; t += 3) {
    const a = at(t),
      b = at(t + 1),
      c = at(t + 2);
    if (Math.abs(pos.getZ(a) - zc) > eps || Math.abs(pos.getZ(b) - zc) > eps || Math.abs(pos.getZ(c) - zc) > eps)
      continue;
    const ux = pos.getX(b) - pos.getX(a),
      uy = pos.getY(b) - pos.getY(a);
    const vx = pos.getX(c) - pos.getX(a),
      vy = pos.getY(c) - pos.getY(a);
    area += Math.abs(ux * vy - uy * vx) / 2;
  }
  return area;
}

export function polygonArea(pts: { x: number; y: number }[]): number {
  let s = 0;
  for (let i = 0; i < pts.length; i++) {
    const p = pts[i],
      q = pts[(i + 1) % pts.length];
    s += p.x * q.y - q.x * p.y;
  }
  return s / 2;
}

export function near(actual: number, expected: number, tol: number, what = ''): void {
  if (!(Math.abs(actual - expected) <= tol)) throw new Error(`${what}: expected ${expected} ± ${tol}, got ${actual}`);
}
