import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { metaballsObject, metaballField, METABALL_QUAD_HEIGHT } from '../../viewer/src/meshes/index';
import type { Blob3 } from '../../viewer/src/meshes/index';
import { near, P2W } from './helpers';

const opts = { smoothingPx: 90, p2w: P2W, aspect: 16 / 9 };
const u = (o: THREE.Object3D) => ((o as THREE.Mesh).material as THREE.ShaderMaterial).uniforms;

test('quad: 0.498656 world tall, aspect wide, at z = 5, never culled, drawn after (renderOrder 1)', () => {
  const m = metaballsObject([{ x: 0, y: 0, z: 0, r: 100 }], opts);
  near(METABALL_QUAD_HEIGHT, 0.498656, 1e-6, 'height');
  const g = (m as unknown as THREE.Mesh).geometry;
  g.computeBoundingBox();
  const b = g.boundingBox!;
  near(b.max.y - b.min.y, 0.498656, 1e-6, 'quad height');
  near(b.max.x - b.min.x, 0.498656 * 16 / 9, 1e-6, 'quad width');
  assert.equal(m.position.z, 5);
  assert.equal(m.frustumCulled, false);
  assert.equal(m.renderOrder, 1);
  // it fills the view exactly: from (0,0,6), half-height / distance = tan 14°
  near((b.max.y / (6 - m.position.z)), Math.tan((14 * Math.PI) / 180), 1e-6, 'fills the view');
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
  assert.deepEqual(un.uAlbedo.value.toArray(), [0.40, 0.035, 0.012]);
  assert.deepEqual(un.uRim.value.toArray(), [1.0, 0.45, 0.10]);
  assert.equal(un.uSpecExp.value, 80);
  const lava = metaballsObject([{ x: 0, y: 0, z: 0, r: 100 }], { ...opts, roughness: 0.18 });
  near(u(lava).uSpecExp.value, 84.88, 1e-9, 'lava-lamp exponent');
  const lin = new THREE.Color(0.5, 0.02, 1); // a linear colour as §1.4 gives it
  const c = metaballsObject([{ x: 0, y: 0, z: 0, r: 100 }], { ...opts, fill: lin, emissive: lin });
  near(u(c).uAlbedo.value.x, Math.pow((0.5 + 0.055) / 1.055, 2.4), 1e-9, 'fill r');
  near(u(c).uAlbedo.value.y, 0.02 / 12.92, 1e-9, 'fill g');
  near(u(c).uRim.value.z, 1, 1e-9, 'emissive b');
  c.setMaterial({});
  assert.deepEqual(u(c).uAlbedo.value.toArray(), [0.40, 0.035, 0.012]);
});

test('field: smooth union of spheres (CPU twin of the shader)', () => {
  const blobs: Blob3[] = [{ x: -100, y: 0, z: 0, r: 100 }, { x: 100, y: 0, z: 0, r: 100 }];
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
  for (const s of ['180', '0.0006', '16.0', '0.0012', 'vec3(-0.45, 0.8, 0.5)', 'vec3(0.6, -0.3, 0.5)', 'discard', 'colorspace_fragment'])
    assert.ok(fs.includes(s), s);
});
