import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  colorToSrgb8,
  linearToSrgb8,
  oklchToLinearSrgb,
  oklabToLinearSrgb,
  parseHex,
  colorToLinear,
} from '../../src/lang/color.js';
import { designFrame, imagePaths, valueSchema, type Value } from '../../src/lang/index.js';
import { RUNNERS, runnerError, newestRunner, functionSince, SEMVER } from '../../src/lang/runners.js';
import { evalExpr } from './helpers.js';

test('oklch → sRGB bytes against viewer.md §1.4 known values', () => {
  assert.deepEqual(linearToSrgb8(oklchToLinearSrgb(0.1, 0.04, 280)), { r: 2, g: 2, b: 16 });
  assert.deepEqual(linearToSrgb8(oklchToLinearSrgb(0.97, 0.012, 95)), { r: 247, g: 245, b: 236 });
  assert.deepEqual(colorToSrgb8(evalExpr('oklch(0.10, 0.04, 280)')), { r: 2, g: 2, b: 16, a: 1 });
  // hue unit ignored (always degrees); values beyond the gamut clip per channel
  assert.deepEqual(colorToSrgb8(evalExpr('oklch(0.97, 0.012, 95deg)')), { r: 247, g: 245, b: 236, a: 1 });
  assert.deepEqual(linearToSrgb8(oklchToLinearSrgb(70, 0, 0)), { r: 255, g: 255, b: 255 });
  assert.deepEqual(linearToSrgb8(oklchToLinearSrgb(0, 0, 0)), { r: 0, g: 0, b: 0 });
});

test('hex, oklab and srgb render in their colour (our policy)', () => {
  assert.deepEqual(colorToSrgb8(evalExpr('#102030')), { r: 16, g: 32, b: 48, a: 1 });
  assert.deepEqual(colorToSrgb8(evalExpr('#f00')), { r: 255, g: 0, b: 0, a: 1 });
  assert.deepEqual(colorToSrgb8(evalExpr('#ff00ff80')), { r: 255, g: 0, b: 255, a: 128 / 255 });
  assert.deepEqual(colorToSrgb8(evalExpr('#f008')), { r: 255, g: 0, b: 0, a: 136 / 255 });
  assert.equal(parseHex('12345'), null);
  assert.equal(colorToLinear(evalExpr('#12345')), null);
  assert.deepEqual(colorToSrgb8(evalExpr('srgb(1, 0, 0)')), { r: 255, g: 0, b: 0, a: 1 });
  assert.deepEqual(colorToSrgb8(evalExpr('srgb(255, 0.5, -1)')), { r: 255, g: 128, b: 0, a: 1 });
  // oklab with a = b = 0 is a grey; oklab(L, a, b) equals oklch(L, hypot, atan2)
  const g = colorToSrgb8(evalExpr('oklab(0.5, 0, 0)'))!;
  assert.ok(g.r === g.g && g.g === g.b);
  assert.deepEqual(
    oklabToLinearSrgb(0.6, 0.1, -0.05),
    oklchToLinearSrgb(0.6, Math.hypot(0.1, -0.05), (Math.atan2(-0.05, 0.1) * 180) / Math.PI),
  );
  assert.equal(colorToLinear({ kind: 'number', value: 1, unit: null }), null);
});

const compose = (...layers: Value[]): Value => ({
  kind: 'constructed',
  name: 'compose',
  fields: [{ name: 'layers', value: { kind: 'array', elems: layers } }],
});

test('designFrame (viewer.md §3.2)', () => {
  assert.deepEqual(designFrame(evalExpr('compose [rect(width: 300px, height: 300px, fill: #ff3399)]')), {
    width: 300,
    height: 300,
    background: { kind: 'color', color: { kind: 'color', form: 'hex', digits: 'ff3399' } },
  });
  const noSize = designFrame(evalExpr('compose [rect(fill: #000)]'));
  assert.equal(noSize.width, 1920);
  assert.equal(noSize.height, 1080);
  const zero = designFrame(evalExpr('compose [rect(width: 500px, height: 0px, fill: #000)]'));
  assert.deepEqual([zero.width, zero.height], [1920, 1080]);
  const zeroW = designFrame(evalExpr('compose [rect(width: 0px, height: 540px, fill: #000)]'));
  assert.deepEqual([zeroW.width, zeroW.height], [960, 540]);
  const nofill = designFrame(evalExpr('compose [rect(width: 10px, height: 20px)]'));
  assert.deepEqual(nofill.background, { kind: 'color', color: { kind: 'color', form: 'hex', digits: 'ffffff' } });
  assert.deepEqual(designFrame(evalExpr('compose [image("/img/a.jpg")]')), {
    width: 1920,
    height: 1080,
    background: { kind: 'image', path: '/img/a.jpg' },
  });
  assert.deepEqual(
    designFrame(evalExpr('compose [image("/img/a.jpg").fit(cover), rect(width: 1px, height: 1px)]')).background,
    { kind: 'image', path: '/img/a.jpg' },
  );
  assert.deepEqual(designFrame(evalExpr('compose [sphere(1), rect(width: 1px, height: 1px)]')), {
    width: 1920,
    height: 1080,
    background: null,
  });
  assert.deepEqual(designFrame(evalExpr('rect(width: 10px, height: 10px)')), {
    width: 1920,
    height: 1080,
    background: null,
  });
  assert.deepEqual(designFrame(compose()), { width: 1920, height: 1080, background: null });
});

test('imagePaths: every image, deduplicated, in order', () => {
  const v = evalExpr(
    'compose [image("/a.png").fit(cover), render3d(sphere(1).material(fill: image("/b.jpg").as_texture(projection: equirectangular)), lights: [image("/a.png")]), vectorize(image("/c.png")), { k: image("""/d.png""") }]',
  );
  assert.deepEqual(imagePaths(v), ['/a.png', '/b.jpg', '/c.png', '""/d.png""']);
  assert.deepEqual(imagePaths(evalExpr('image(1)')), []);
});

test('value schema accepts every kind and rejects malformed trees', () => {
  const v = evalExpr(
    '[nil_name, 1px, "s", true, #fff, oklch(1, 2, 3), oklab(1, 2, 3), srgb(1, 2, 3), {a: 1}, |x: N| { x }, if false { 1 }, 50%]',
  );
  assert.deepEqual(valueSchema.parse(JSON.parse(JSON.stringify(v))), v);
  assert.equal(valueSchema.safeParse({ kind: 'number', value: 1, unit: 'furlong' }).success, false);
  assert.equal(valueSchema.safeParse({ kind: 'array', elems: [{ kind: 'wat' }] }).success, false);
  assert.equal(valueSchema.safeParse({ kind: 'color', form: 'oklch', l: { kind: 'nil' } }).success, false);
  assert.deepEqual(evalExpr('50%'), { kind: 'number', value: 50, unit: 'percent' });
});

test('runner list', () => {
  assert.deepEqual(
    RUNNERS.map((r) => r.version),
    ['0.0.1', '0.0.2', '0.0.3', '0.0.5', '0.0.6', '0.0.7', '0.0.10', '0.0.12', '0.0.13'],
  );
  assert.equal(newestRunner(), '0.0.13');
  assert.equal(runnerError('0.0.3'), null);
  assert.match(runnerError('0.0.4')!, /^unknown runner version "0\.0\.4"/);
  assert.equal(functionSince('svg'), '0.0.5');
  assert.equal(functionSince('path'), '0.0.3');
  assert.equal(functionSince('vectorize'), '0.0.13');
  assert.equal(functionSince('metaballs'), '0.0.2');
  assert.equal(functionSince('rect'), null);
  assert.ok(SEMVER.test('0.1.0-beta.1'));
  assert.ok(!SEMVER.test('banana'));
});
