import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import {
  metaballsObject,
  metaballField,
  metaballMarch,
  metaballRayMayHit,
  metaballMissBound,
  METABALL_DEFAULTS,
  METABALL_MISS_MARGIN,
  METABALL_QUAD_HEIGHT,
} from '../../../viewer/src/meshes/index.js';
import type { Blob3 } from '../../../viewer/src/meshes/index.js';
import { near, P2W } from './helpers.js';

const opts = { smoothingPx: 90, p2w: P2W, aspect: 16 / 9 };
const u = (o: THREE.Object3D) => ((o as THREE.Mesh).material as THREE.ShaderMaterial).uniforms;

test('quad: 0.498656 world tall, aspect wide, at z = 5, never culled, drawn after (renderOrder 1)', () => {
  const m = metaballsObject([{ x: 0, y: 0, z: 0, r: 100 }], opts);
  near(METABALL_QUAD_HEIGHT, 0.498656, 1e-6, 'height');
  const g = (m as unknown as THREE.Mesh).geometry;
  g.computeBoundingBox();
  const b = g.boundingBox!;
  near(b.max.y - b.min.y, 0.498656, 1e-6, 'quad height');
  near(b.max.x - b.min.x, (0.498656 * 16) / 9, 1e-6, 'quad width');
  assert.equal(m.position.z, 5);
  assert.equal(m.frustumCulled, false);
  assert.equal(m.renderOrder, 1);
  // it fills the view exactly: from (0,0,6), half-height / distance = tan 14°
  near(b.max.y / (6 - m.position.z), Math.tan((14 * Math.PI) / 180), 1e-6, 'fills the view');
});

test('uniforms: blobs and smoothing in world units; count capped at 24; update without rebuild', () => {
  const blobs: Blob3[] = Array.from({ length: 30 }, (_, i) => ({ x: i, y: -2 * i, z: 3, r: 100 + i }));
  const m = metaballsObject(blobs, opts);
  const un = u(m);
  assert.equal(un.uCount.value, 24);
  assert.equal(un.uBlobs.value.length, 24);
  near(un.uBlobs.value[5].x, 5 * P2W, 1e-12, 'x');
  near(un.uBlobs.value[5].y, -10 * P2W, 1e-12, 'y');
  near(un.uBlobs.value[5].w, 105 * P2W, 1e-12, 'r');
  near(un.uK.value, 90 * P2W, 1e-12, 'k');
  const mat = (m as unknown as THREE.Mesh).material;
  m.update([{ x: 10, y: 20, z: 30, r: 40 }]);
  assert.equal(un.uCount.value, 1);
  near(un.uBlobs.value[0].z, 30 * P2W, 1e-12, 'updated z');
  assert.equal(un.uBlobs.value[1].w, 0);
  assert.equal((m as unknown as THREE.Mesh).material, mat, 'same material object');
  m.update([]);
  assert.equal(m.visible, false, 'no blobs: nothing drawn');
  m.update([{ x: 0, y: 0, z: 0, r: 1 }], 0);
  assert.ok(un.uK.value > 0, 'k = 0 is clamped');
});

test('material: defaults; roughness → 100 − 84ρ; fill/emissive decoded twice (Q14)', () => {
  const m = metaballsObject([{ x: 0, y: 0, z: 0, r: 100 }], opts);
  const un = u(m);
  assert.deepEqual(un.uAlbedo.value.toArray(), [0.4, 0.035, 0.012]);
  assert.deepEqual(un.uRim.value.toArray(), [1.0, 0.45, 0.1]);
  assert.equal(un.uSpecExp.value, 80);
  const lava = metaballsObject([{ x: 0, y: 0, z: 0, r: 100 }], { ...opts, roughness: 0.18 });
  near(u(lava).uSpecExp.value, 84.88, 1e-9, 'lava-lamp exponent');
  const lin = new THREE.Color(0.5, 0.02, 1); // a linear colour as §1.4 gives it
  const c = metaballsObject([{ x: 0, y: 0, z: 0, r: 100 }], { ...opts, fill: lin, emissive: lin });
  near(u(c).uAlbedo.value.x, Math.pow((0.5 + 0.055) / 1.055, 2.4), 1e-9, 'fill r');
  near(u(c).uAlbedo.value.y, 0.02 / 12.92, 1e-9, 'fill g');
  near(u(c).uRim.value.z, 1, 1e-9, 'emissive b');
  c.setMaterial({});
  assert.deepEqual(u(c).uAlbedo.value.toArray(), [0.4, 0.035, 0.012]);
});

test('field: smooth union of spheres (CPU twin of the shader)', () => {
  const blobs: Blob3[] = [
    { x: -100, y: 0, z: 0, r: 100 },
    { x: 100, y: 0, z: 0, r: 100 },
  ];
  // far from both: close to the plain sphere distance; between them the union bulges (smaller distance)
  near(metaballField(new THREE.Vector3(-1000 * P2W, 0, 0), blobs, 80, P2W), 800 * P2W, 1e-9, 'far side');
  const mid = metaballField(new THREE.Vector3(0, 0, 0), blobs, 80, P2W);
  assert.ok(mid < 0, 'the origin is inside the merged surface');
  const gap = metaballField(new THREE.Vector3(0, 120 * P2W, 0), blobs, 80, P2W);
  const hard = Math.hypot(100, 120) * P2W - 100 * P2W;
  assert.ok(gap < hard, 'smooth union fills the crease');
});

test('shader source carries the §5.6.6 constants', () => {
  const m = metaballsObject([{ x: 0, y: 0, z: 0, r: 100 }], opts);
  const fs = ((m as unknown as THREE.Mesh).material as THREE.ShaderMaterial).fragmentShader;
  for (const s of [
    '180',
    '0.0006',
    '16.0',
    '0.0012',
    'vec3(-0.45, 0.8, 0.5)',
    'vec3(0.6, -0.3, 0.5)',
    'discard',
    'colorspace_fragment',
  ])
    assert.ok(fs.includes(s), s);
});

// The shader discards, without marching, rays that provably miss (a speed-up that must not change a pixel):
// every ray the march would hit must pass the miss test, and the test must reject the rays far from the blobs.
const LAVA: Blob3[] = [
  { x: 10, y: 30, z: 0, r: 250 },
  { x: -280, y: 150, z: 0, r: 160 },
  { x: 300, y: -10, z: 0, r: 170 },
  { x: -160, y: -240, z: 0, r: 150 },
  { x: 230, y: -280, z: 0, r: 145 },
  { x: -470, y: 40, z: 0, r: 120 },
  { x: 500, y: -90, z: 0, r: 115 },
];
function screenRay(px: number, py: number, w: number, h: number): [THREE.Vector3, THREE.Vector3] {
  const qh = METABALL_QUAD_HEIGHT,
    qw = qh * (w / h);
  const ro = new THREE.Vector3(0, 0, 6);
  const rd = new THREE.Vector3(((px + 0.5) / w - 0.5) * qw, (0.5 - (py + 0.5) / h) * qh, -1).normalize();
  return [ro, rd];
}

test('miss test: no ray the march hits is rejected (lava-lamp blobs, 1920x1080 grid)', () => {
  let hits = 0,
    rejected = 0,
    rays = 0;
  for (let py = 0; py < 1080; py += 9)
    for (let px = 0; px < 1920; px += 9) {
      const [ro, rd] = screenRay(px, py, 1920, 1080);
      const may = metaballRayMayHit(ro, rd, LAVA, 90, P2W);
      const m = metaballMarch(ro, rd, LAVA, 90, P2W);
      rays++;
      if (m.hit) {
        hits++;
        assert.ok(may, `ray through (${px}, ${py}) hits but was rejected`);
      }
      if (!may) rejected++;
    }
  assert.ok(hits > rays * 0.15, `hits ${hits}/${rays}`);
  assert.ok(rejected > rays * 0.5, `rejected ${rejected}/${rays}`);
});

test('miss test: conservative on random blob sets, near the silhouettes too', () => {
  let seed = 12345;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  let hits = 0;
  for (let scene = 0; scene < 40; scene++) {
    const n = 1 + Math.floor(rnd() * 10);
    const blobs: Blob3[] = Array.from({ length: n }, () => ({
      x: (rnd() - 0.5) * 1200,
      y: (rnd() - 0.5) * 700,
      z: (rnd() - 0.5) * 600,
      r: 30 + rnd() * 250,
    }));
    const k = rnd() < 0.2 ? 0 : rnd() * 300;
    for (let i = 0; i < 400; i++) {
      // aim half of the rays at a blob's rim, where the smooth union and the march's epsilon matter most
      let px = rnd() * 1920,
        py = rnd() * 1080;
      if (i % 2 === 0) {
        const b = blobs[i % n],
          a = rnd() * 2 * Math.PI;
        const scale = 6 / (6 - b.z * P2W); // design px at z = 0 are screen px; perspective for the blob's depth
        const rr = b.r * scale * (0.9 + rnd() * 0.5);
        px = 960 + (b.x * scale + Math.cos(a) * rr);
        py = 540 - (b.y * scale + Math.sin(a) * rr);
      }
      const [ro, rd] = screenRay(px, py, 1920, 1080);
      const m = metaballMarch(ro, rd, blobs, k, P2W);
      if (m.hit) {
        hits++;
        assert.ok(metaballRayMayHit(ro, rd, blobs, k, P2W), `scene ${scene} ray ${i} hits but was rejected`);
      }
    }
  }
  assert.ok(hits > 1000, `hits ${hits}`);
});

test('miss bound: (n − 1)·k/4 + hitEps + margin, in world units', () => {
  near(
    metaballMissBound(1, 0.25),
    METABALL_DEFAULTS.hitEps + METABALL_MISS_MARGIN,
    1e-12,
    'one blob: no smoothing deficit',
  );
  near(metaballMissBound(7, 0.25), 6 * 0.0625 + METABALL_DEFAULTS.hitEps + METABALL_MISS_MARGIN, 1e-12, 'seven blobs');
  const m = metaballsObject(LAVA, opts);
  near(u(m).uInflate.value, metaballMissBound(7, 90 * P2W), 1e-12, 'uniform');
  assert.equal(
    ((m as unknown as THREE.Mesh).material as THREE.ShaderMaterial).defines.BLOB_COUNT,
    7,
    'loops run over the blob count',
  );
  m.update(LAVA.slice(0, 3));
  assert.equal(((m as unknown as THREE.Mesh).material as THREE.ShaderMaterial).defines.BLOB_COUNT, 3);
});
