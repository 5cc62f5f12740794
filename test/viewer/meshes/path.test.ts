import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathGeometry } from '../../../viewer/src/meshes/index.js';
import { bbox, near, P2W } from './helpers.js';

test('fewer than 3 points: nothing', () => {
  assert.equal(pathGeometry([], 16, P2W), null);
  assert.equal(
    pathGeometry(
      [
        [0, 0],
        [10, 10],
      ],
      16,
      P2W,
    ),
    null,
  );
});

test('triangle: bbox = points + bevel, depth D + 2·bevel, centred (absolute position lost)', () => {
  const D = 60;
  const g = pathGeometry(
    [
      [0, -80],
      [-760, -600],
      [-543, -600],
    ],
    D,
    P2W,
  )!;
  const b = bbox(g);
  const bevel = Math.max(0.1 * D * P2W, 0.5 * P2W);
  near(b.max.z - b.min.z, D * P2W + 2 * bevel, 1e-6, 'z span');
  // the caps (z extremes) carry the original outline: 760 × 520 px
  const pos = g.getAttribute('position');
  let x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity;
  for (let i = 0; i < pos.count; i++) {
    if (Math.abs(pos.getZ(i) - b.max.z) > 1e-7) continue;
    x0 = Math.min(x0, pos.getX(i));
    x1 = Math.max(x1, pos.getX(i));
    y0 = Math.min(y0, pos.getY(i));
    y1 = Math.max(y1, pos.getY(i));
  }
  near(x1 - x0, 760 * P2W, 1e-6, 'cap width');
  near(y1 - y0, 520 * P2W, 1e-6, 'cap height');
  // the walls are pushed outward (three.js clamps the push at sharp corners)
  assert.ok(b.max.y - b.min.y > 520 * P2W && b.max.x - b.min.x > 760 * P2W);
  for (const ax of ['x', 'y', 'z'] as const) near(b.min[ax] + b.max[ax], 0, 1e-6, `centre ${ax}`);
});

test('square: exact box, vertex count of a 4-segment bevel extrude', () => {
  const D = 16;
  const g = pathGeometry(
    [
      [0, 0],
      [100, 0],
      [100, 100],
      [0, 100],
    ],
    D,
    P2W,
  )!;
  const b = bbox(g);
  const bevel = Math.max(0.1 * D * P2W, 0.5 * P2W); // 1.6 px
  near(b.max.x - b.min.x, 100 * P2W + 2 * bevel, 1e-6, 'x');
  near(b.max.y - b.min.y, 100 * P2W + 2 * bevel, 1e-6, 'y');
  near(b.max.z - b.min.z, D * P2W + 2 * bevel, 1e-6, 'z');
  // caps: 2 triangles × 2 caps; sides: 4 edges × (steps 1 + 2·4 bevel segments) quads × 2 triangles
  const tris = g.getAttribute('position').count / 3;
  assert.equal(tris, 2 * 2 + 4 * (1 + 2 * 4) * 2);
});

test('small depth: bevel floor of 0.5 px', () => {
  const g = pathGeometry(
    [
      [0, 0],
      [100, 0],
      [0, 100],
    ],
    2,
    P2W,
  )!;
  const b = bbox(g);
  near(b.max.z - b.min.z, 2 * P2W + 2 * 0.5 * P2W, 1e-6, 'z span with 0.5 px bevel');
});

test('winding does not matter; a repeated last point is harmless', () => {
  const a = bbox(
    pathGeometry(
      [
        [0, 0],
        [100, 0],
        [100, 50],
      ],
      16,
      P2W,
    )!,
  );
  const b = bbox(
    pathGeometry(
      [
        [100, 50],
        [100, 0],
        [0, 0],
        [100, 50],
      ],
      16,
      P2W,
    )!,
  );
  for (const ax of ['x', 'y', 'z'] as const) near(a.max[ax] - a.min[ax], b.max[ax] - b.min[ax], 1e-6, ax);
});
