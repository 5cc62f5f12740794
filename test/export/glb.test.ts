// The GLB writer on its own: what a glTF reader and the Khronos validator see.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { writeGlb, writeGlbWithStats } from '../../src/export/glb.js';
import { ExportError } from '../../src/export/errors.js';
import { errorsOf, extent, readGlb, signedVolume, validate } from './helpers.js';

test('a box: valid glTF 2.0, 4-byte aligned chunks, one scene/node/mesh/material, bounds in the accessor', async () => {
  const glb = writeGlb(new THREE.BoxGeometry(2, 4, 6));
  const r = await validate(glb);
  assert.equal(r.issues.numErrors, 0, errorsOf(r));
  assert.equal(r.issues.numWarnings, 0);
  assert.equal(glb.readUInt32LE(4), 2, 'GLB version 2');
  assert.equal(glb.readUInt32LE(8), glb.length, 'header length = file length');
  const jsonLen = glb.readUInt32LE(12);
  assert.equal(jsonLen % 4, 0, 'JSON chunk padded to 4');
  assert.equal(glb.readUInt32LE(20 + jsonLen) % 4, 0, 'BIN chunk padded to 4');
  const g = readGlb(glb);
  assert.equal(g.json.asset.version, '2.0');
  assert.deepEqual(
    [g.json.scenes.length, g.json.nodes.length, g.json.meshes.length, g.json.materials.length],
    [1, 1, 1, 1],
  );
  assert.deepEqual(g.json.accessors[0].min, [-1, -2, -3]);
  assert.deepEqual(g.json.accessors[0].max, [1, 2, 3]);
  assert.equal(g.json.accessors[2].componentType, 5123, 'UNSIGNED_SHORT for 24 vertices');
  assert.equal(g.positions.length / 3, 24, 'a flat-shaded box shares its corners within each face: 4 × 6');
  assert.ok(signedVolume(g) > 47.9 && signedVolume(g) < 48.1, `outward faces: volume ${signedVolume(g)}`);
});

test('non-indexed triangles are welded to indices without moving anything', () => {
  const indexed = new THREE.BoxGeometry(1, 1, 1);
  const flat = indexed.toNonIndexed();
  assert.deepEqual(writeGlb(flat), writeGlb(indexed), 'same bytes from the indexed and the non-indexed box');
});

test('a Group: every mesh merged with its transform', async () => {
  const group = new THREE.Group();
  group.add(new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1)));
  const ball = new THREE.Mesh(new THREE.SphereGeometry(1, 24, 12));
  ball.position.set(10, 0, 0);
  group.add(ball);
  group.scale.set(2, 2, 2);
  const glb = writeGlb(group);
  const r = await validate(glb);
  assert.equal(r.issues.numErrors, 0, errorsOf(r));
  const e = extent(readGlb(glb).positions);
  assert.deepEqual([e.min[0], e.max[0]], [-1, 22]);
});

test('more than 65 535 vertices switch to UNSIGNED_INT indices, still valid', async () => {
  const { glb, stats } = writeGlbWithStats(new THREE.SphereGeometry(1, 400, 200)); // smooth normals: few twins
  assert.ok(stats.vertexCount > 65535, `${stats.vertexCount} vertices`);
  assert.equal(stats.indexType, 'UNSIGNED_INT');
  assert.equal(readGlb(glb).json.accessors[2].componentType, 5125);
  const r = await validate(glb);
  assert.equal(r.issues.numErrors, 0, errorsOf(r));
});

test('degenerate triangles are dropped and zero normals replaced: the validator stays at 0 errors', async () => {
  const g = new THREE.BufferGeometry();
  g.setAttribute(
    'position',
    new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0, 0, 1, 0, /* degenerate: */ 0, 0, 0, 1, 0, 0, 2, 0, 0], 3),
  );
  g.setAttribute('normal', new THREE.Float32BufferAttribute(new Array(18).fill(0), 3));
  const { glb, stats } = writeGlbWithStats(g);
  assert.equal(stats.triangleCount, 1);
  const r = await validate(glb);
  assert.equal(r.issues.numErrors, 0, errorsOf(r));
  assert.deepEqual([...readGlb(glb).normals.slice(0, 3)], [0, 0, 1], 'the face normal');
});

test('no triangle to write: ExportError empty_mesh', () => {
  assert.throws(
    () => writeGlb(new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute([], 3))),
    (e: unknown) => e instanceof ExportError && e.code === 'empty_mesh',
  );
  assert.throws(
    () => writeGlb(new THREE.Group()),
    (e: unknown) => e instanceof ExportError && e.code === 'empty_mesh',
  );
});
