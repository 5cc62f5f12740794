// The scene builder in Node (no WebGL): design frame, transforms, materials, lights, fitting box.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { designFrame, VH } from '../../../viewer/src/build/frame.js';
import { buildTopLayers } from '../../../viewer/src/build/builder.js';
import { GeometryCache } from '../../../viewer/src/build/cache.js';
import { ImageStore } from '../../../viewer/src/build/assets.js';
import { frameContext } from '../../../viewer/src/build/context.js';
import { fitBox } from '../../../viewer/src/viewer.js';
import { node, n, hex, compose, arr } from '../helper.js';

function ctxFor(value: any, runner = '0.0.13') {
  const frame = designFrame(value);
  const { ctx, warnings } = frameContext(frame, {
    runner,
    font: null,
    geometries: new GeometryCache(),
    images: new ImageStore(),
  });
  const root = buildTopLayers(frame.layers, ctx);
  return { frame, ctx, root, warnings };
}
const bg = node('rect', { width: n(1920, 'px'), height: n(1080, 'px'), fill: hex('000000') });
const sphere = (r: number) => node('sphere', { r: n(r, 'px') });
const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps, `${a} vs ${b}`);

test('design frame: p2w = VH / H, aspect, background, layer 0 skipped', () => {
  close(VH, 2.991936, 1e-6);
  const f = designFrame(compose(bg, sphere(10)) as any);
  close(f.p2w, 0.00277031, 1e-8);
  assert.equal(f.aspect, 16 / 9);
  assert.deepEqual(f.background, { kind: 'color', rgb: [0, 0, 0] });
  assert.equal(f.layers.length, 1);
  const sq = designFrame(compose(node('rect', { width: n(300, 'px'), height: n(300, 'px') })) as any);
  assert.equal(sq.aspect, 1);
  close(sq.p2w, VH / 300);
  assert.deepEqual(sq.background, { kind: 'color', rgb: [1, 1, 1] }); // missing fill: white
  const bare = designFrame(sphere(10) as any);
  assert.equal(bare.layers.length, 1);
  assert.equal(bare.background.kind, 'none');
  close(bare.p2w, VH / 1080);
  const img = designFrame(compose(node('fit', {}, node('image', {}, { kind: 'string', raw: '"/img/a.jpg"' }))) as any);
  assert.deepEqual(img.background, { kind: 'image', path: '/img/a.jpg' });
  const tex = designFrame(
    compose(node('as_texture', {}, node('image', {}, { kind: 'string', raw: '"/img/a.jpg"' }))) as any,
  );
  assert.equal(tex.background.kind, 'none');
  assert.equal(tex.layers.length, 1);
});

test('transforms: translate adds (px → world), rotate and scale set, squash multiplies, T·R·S', () => {
  const chain = node(
    'translate',
    { x: n(100, 'px'), y: n(1) },
    node(
      'squash',
      { factor: n(0.5) },
      node(
        'scale',
        {},
        node(
          'rotate',
          { x: n(90, 'deg') },
          node('rotate', { z: n(1) }, node('translate', { x: n(50, 'px') }, sphere(10))),
        ),
        n(2),
      ),
    ),
  );
  const { root, frame } = ctxFor(compose(bg, chain));
  const o = root.children[0];
  close(o.position.x, 150 * frame.p2w);
  close(o.position.y, 1);
  close(o.rotation.x, Math.PI / 2);
  close(o.rotation.z, 0); // the outer rotate replaced the inner one
  close(o.scale.y, 2 * 0.5);
  close(o.scale.x, 2 * Math.sqrt(2));
  close(o.scale.z, 2 * Math.sqrt(2));
  const neg = ctxFor(compose(bg, node('squash', {}, sphere(10), n(-0.5)))).root.children[0];
  close(neg.scale.y, 1.5);
  close(neg.scale.x, 1 / Math.sqrt(0.5));
});

test('pivot wraps in a group offset by the bounding radius; a pivot of a pivot reuses it', () => {
  const { root, frame } = ctxFor(
    compose(bg, node('pivot', {}, node('pivot', {}, sphere(120), node('bottom')), node('left'))),
  );
  const outer = root.children[0];
  const inner = outer.children[0];
  const mesh = inner.children[0];
  close(mesh.position.y, 120 * frame.p2w);
  close(inner.position.x, 120 * frame.p2w);
  assert.equal(outer.userData.cmRadius, 120 * frame.p2w);
  const none = ctxFor(compose(bg, node('pivot', {}, sphere(120), node('middle')))).root.children[0];
  assert.equal(none.children[0].position.length(), 0);
});

test('material: one new standard material on every mesh of the subtree, created after the defaults', () => {
  const tree = compose(
    bg,
    node(
      'material',
      { fill: hex('ff0000'), metalness: n(0.3), roughness: n(0.2), emissive_intensity: n(0.5), opacity: n(0.4) },
      compose(sphere(10), node('rect', { width: n(10, 'px'), height: n(10, 'px') })),
    ),
  );
  const { root, ctx } = ctxFor(tree);
  const meshes: THREE.Mesh[] = [];
  root.traverse((o) => {
    if ((o as THREE.Mesh).isMesh) meshes.push(o as THREE.Mesh);
  });
  assert.equal(meshes.length, 2);
  const m = meshes[0].material as THREE.MeshStandardMaterial;
  assert.equal(meshes[1].material, m);
  assert.ok(m.isMeshStandardMaterial);
  assert.equal(m.metalness, 0.3);
  assert.equal(m.roughness, 0.2);
  assert.equal(m.emissiveIntensity, 0.5);
  assert.deepEqual(m.emissive.toArray(), [1, 1, 1]); // Q7
  assert.equal(m.transparent, true);
  assert.equal(m.opacity, 0.4);
  assert.equal(m.depthWrite, true);
  assert.equal(ctx.materials.at(-1), m);
  assert.ok((m as any).id > (ctx.materials[0] as any).id); // created last: drawn after the defaults' order
});

test('lights are global, defaults per §5.4, the last bloom wins, camera is read', () => {
  const lights = arr(
    node('ambient', {}),
    node('directional', {}),
    node('point', { at: node('vec3', {}, n(100), n(0), n(0)), color: hex('ff0000') }),
    node('spotlight', { tint: hex('00ff00'), range: n(300) }),
    node('bloom', { strength: n(2) }),
  );
  const r1 = node('render3d', { lights, camera: node('camera', { distance: n(1000), fov: n(40) }) }, sphere(10));
  const r2 = node('render3d', { lights: arr(node('bloom', {})) }, sphere(10));
  const { ctx, frame } = ctxFor(compose(bg, r1, r2));
  assert.equal(ctx.lights.length, 4);
  const [amb, dir, pt, spot] = ctx.lights as any[];
  assert.ok(amb.isAmbientLight);
  assert.equal(amb.intensity, 0.3);
  assert.ok(dir.isDirectionalLight);
  assert.deepEqual(dir.position.toArray(), [0, 1, 0]);
  assert.equal(dir.intensity, 1);
  assert.ok(pt.isPointLight);
  close(pt.position.x, 100 * frame.p2w);
  close(pt.distance, 600 * frame.p2w);
  assert.equal(pt.decay, 2);
  assert.deepEqual(pt.color.toArray(), [1, 0, 0]);
  assert.ok(spot.isPointLight);
  close(spot.distance, 300 * frame.p2w);
  assert.deepEqual(spot.color.toArray(), [0, 1, 0]);
  assert.deepEqual(ctx.bloom, { strength: 0.8, radius: 0.4, threshold: 0.6 });
  assert.deepEqual(ctx.camera, { distancePx: 1000, fovDeg: 40 });
});

test('geometries are cached by their defining arguments', () => {
  const tree = compose(bg, sphere(10), sphere(10), sphere(20), node('rect', { width: n(5, 'px'), height: n(5, 'px') }));
  const { root, ctx } = ctxFor(tree);
  const geos = root.children.map((o) => (o as THREE.Mesh).geometry);
  assert.equal(geos[0], geos[1]);
  assert.notEqual(geos[0], geos[2]);
  assert.equal(ctx.geometries.created, 3);
});

test('fitBox: the largest centred box of the scene aspect', () => {
  assert.deepEqual(fitBox(1920, 1080, 16 / 9), { x: 0, y: 0, w: 1920, h: 1080 });
  assert.deepEqual(fitBox(1920, 1080, 1), { x: 420, y: 0, w: 1080, h: 1080 });
  assert.deepEqual(fitBox(1080, 1920, 16 / 9), { x: 0, y: 656, w: 1080, h: 608 });
  assert.deepEqual(fitBox(1920, 1080, 1080 / 1920), { x: 656, y: 0, w: 608, h: 1080 });
});
