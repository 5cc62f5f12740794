import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { svgGeometry } from '../../../viewer/src/meshes/index.js';
import { bbox, near, P2W } from './helpers.js';

const RECT = '<svg viewBox="0 0 100 50"><rect x="10" y="5" width="80" height="40"/></svg>';
const USERS =
  '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2"/><path d="M16 3.128a4 4 0 0 1 0 7.744"/><path d="M22 21v-2a4 4 0 0 0-3-3.87"/><circle cx="9" cy="7" r="4"/></svg>';
const o = { depthPx: 16, sizePx: 400, roundPx: 5, p2w: P2W };

function normalsFacing(g: THREE.BufferGeometry, z: number): number {
  const n = g.getAttribute('normal');
  let c = 0;
  for (let i = 0; i < n.count; i += 3) if (Math.abs(n.getZ(i) - z) < 1e-6) c++;
  return c;
}

test('0.0.5: rect → 2+2 cap triangles facing ±z and 4 outward walls; size tall; ±d/2; round ignored', () => {
  const g = svgGeometry(RECT, { ...o, runner: '0.0.5' }) as THREE.BufferGeometry;
  assert.equal(g.getAttribute('position').count / 3, 4 + 8);
  assert.equal(normalsFacing(g, 1), 2);
  assert.equal(normalsFacing(g, -1), 2);
  const b = bbox(g);
  near(b.max.y - b.min.y, 400 * P2W, 1e-6, 'height');
  near(b.max.x - b.min.x, 800 * P2W, 1e-6, 'width');
  near(b.min.z, -8 * P2W, 1e-7, 'z min');
  near(b.max.z, 8 * P2W, 1e-7, 'z max (no bevel, no Q13 offset)');
  // walls face outward: the wall at the right edge (x max) has normal +x
  const pos = g.getAttribute('position'),
    nor = g.getAttribute('normal');
  for (let i = 0; i < pos.count; i++)
    if (Math.abs(nor.getZ(i)) < 1e-6) {
      const outward = Math.sign(pos.getX(i)) * nor.getX(i) + Math.sign(pos.getY(i)) * nor.getY(i);
      assert.ok(outward > 0, 'wall normal points out of the box');
    }
});

test('0.0.7: walls per piece in both windings', () => {
  const g = svgGeometry(RECT, { ...o, runner: '0.0.7' }) as THREE.BufferGeometry;
  assert.equal(g.getAttribute('position').count / 3, 4 + 16);
});

test('0.0.5 users icon: three.js stroke ribbons (round joins/caps), size tall, depth', () => {
  const g = svgGeometry(USERS, { ...o, depthPx: 80, sizePx: 820, runner: '0.0.5' }) as THREE.BufferGeometry;
  const b = bbox(g);
  near(b.max.y - b.min.y, 820 * P2W, 1e-6, 'height');
  near(b.max.z - b.min.z, 80 * P2W, 1e-6, 'depth');
  const n = svgGeometry(USERS, { ...o, runner: '0.0.13' }) as THREE.BufferGeometry;
  assert.notEqual(g.getAttribute('position').count, n.getAttribute('position').count, 'a different algorithm');
});

test('0.0.5: a stroked circle is a closed ring (no overlapping round caps at its start point)', () => {
  const RING = '<svg fill="none" stroke="black" stroke-width="2"><circle cx="9" cy="7" r="4"/></svg>';
  const g = svgGeometry(RING, { ...o, sizePx: 10 / P2W, depthPx: 1 / P2W, runner: '0.0.5' }) as THREE.BufferGeometry; // 1 world per SVG unit
  const pos = g.getAttribute('position');
  let area = 0;
  for (let i = 0; i < pos.count; i += 3) {
    if (pos.getZ(i) < 0.49 || pos.getZ(i + 1) < 0.49 || pos.getZ(i + 2) < 0.49) continue; // front cap only
    area +=
      ((pos.getX(i + 1) - pos.getX(i)) * (pos.getY(i + 2) - pos.getY(i)) -
        (pos.getX(i + 2) - pos.getX(i)) * (pos.getY(i + 1) - pos.getY(i))) /
      2;
  }
  // annulus r 3..5 = 16π (less a little for the 48-gon); two round caps would add ≈ π
  assert.ok(Math.abs(area - 16 * Math.PI) < 0.02 * 16 * Math.PI, `front cap area ${area}`);
});
