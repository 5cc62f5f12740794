// 3D on value trees: spheres, lights, materials, pivot/squash, camera, bloom, textures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewer, load, frameAt, px, near, node, n, hex, compose, arr, type Frame } from './helper.js';

let browser: Browser;
let page: Page;
before(async () => {
  browser = await launch();
  page = await openViewer(browser, 960, 540);
});
after(async () => {
  await browser?.close();
});

const W = 960,
  H = 540;
const bg = node('rect', { width: n(1920, 'px'), height: n(1080, 'px'), fill: hex('000000') });
const sphere = (r = 200) => node('sphere', { r: n(r, 'px') });
const r3d = (content: unknown, lights: unknown[] = [], extra: Record<string, unknown> = {}) =>
  node('render3d', { lights: arr(...lights), ...extra }, content);
const img = (p: string) => node('image', {}, { kind: 'string', raw: JSON.stringify(p) });

async function draw(tree: unknown, t = 0): Promise<Frame> {
  const r = await load(page, JSON.stringify(tree), W, H);
  assert.equal(r.ok, true, JSON.stringify(r));
  return frameAt(page, t);
}
const lum = (p: number[]) => p[0] + p[1] + p[2];
/** rows/columns whose pixels differ from the corner colour */
function extent(f: Frame, tol = 12) {
  const c = px(f, 0, 0);
  let x0 = f.width,
    x1 = -1,
    y0 = f.height,
    y1 = -1;
  for (let y = 0; y < f.height; y++)
    for (let x = 0; x < f.width; x++) {
      const p = px(f, x, y);
      if (Math.abs(p[0] - c[0]) + Math.abs(p[1] - c[1]) + Math.abs(p[2] - c[2]) > tol) {
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y);
      }
    }
  return { x0, x1, y0, y1 };
}

test('a sphere with no lights is black; ambient lights it evenly; directional shades it', async () => {
  const dark = await draw(compose(bg, r3d(sphere())));
  assert.ok(lum(px(dark, 480, 270)) <= 3, `${px(dark, 480, 270)}`);
  // three.js physical lights: ambient irradiance × albedo / π (linear 0.318 → 153 in sRGB)
  const amb = await draw(compose(bg, r3d(sphere(), [node('ambient', {}, n(1))])));
  const c = px(amb, 480, 270);
  assert.ok(near(c, [153, 153, 153], 2), `${c}`);
  const dir = await draw(
    compose(bg, r3d(sphere(), [node('directional', { from: node('vec3', {}, n(0), n(1), n(0)), intensity: n(2) })])),
  );
  assert.ok(lum(px(dir, 480, 270 - 80)) > lum(px(dir, 480, 270 + 80)) + 60, 'lit from above');
  // r = 200 px at 960x540 → radius ≈ 100 canvas px, magnified slightly by perspective
  const e = extent(amb);
  assert.ok(
    Math.abs(e.x1 - e.x0 + 1 - (2 * 100 * 2165.82) / Math.sqrt(2165.82 ** 2 - 200 ** 2)) <= 3,
    JSON.stringify(e),
  );
});

test('material: fill colour, emissive, emissive gradient top vs bottom, opacity', async () => {
  const red = await draw(
    compose(bg, r3d(node('material', { fill: hex('ff0000') }, sphere()), [node('ambient', {}, n(1))])),
  );
  const p = px(red, 480, 270);
  assert.ok(near(p, [153, 0, 0], 2), `${p}`);
  // Q7: emissive_intensity without emissive glows white, even with no lights
  const glow = await draw(
    compose(bg, r3d(node('material', { fill: hex('000000'), emissive_intensity: n(1) }, sphere()))),
  );
  assert.ok(near(px(glow, 480, 270), [255, 255, 255], 1), `${px(glow, 480, 270)}`);
  const grad = await draw(
    compose(
      bg,
      r3d(
        node(
          'material',
          {
            fill: hex('000000'),
            emissive: hex('ffffff'),
            emissive_intensity: node('gradient', { top: n(1), bottom: n(0) }),
          },
          sphere(),
        ),
      ),
    ),
  );
  const top = lum(px(grad, 480, 270 - 85)),
    mid = lum(px(grad, 480, 270)),
    bot = lum(px(grad, 480, 270 + 85));
  assert.ok(top > mid && mid > bot && bot < 300 && top > 700, `${top} ${mid} ${bot}`);
  // at the centre s = 0.5: emissive 0.5 linear → 188 in sRGB
  assert.ok(near(px(grad, 480, 270), [188, 188, 188], 3), `${px(grad, 480, 270)}`);
  const half = await draw(
    compose(
      node('rect', { width: n(1920, 'px'), height: n(1080, 'px'), fill: hex('0000ff') }),
      r3d(
        node(
          'material',
          { fill: hex('000000'), emissive: hex('ff0000'), emissive_intensity: n(1), opacity: n(0.5) },
          sphere(),
        ),
      ),
    ),
  );
  const q = px(half, 480, 270);
  // blending happens on the sRGB-encoded canvas values (three.js draws straight to the canvas)
  assert.ok(near(q, [128, 0, 128], 2), `translucent red over blue: ${q}`);
});

test('point light falls off with range; spotlight is the same point light', async () => {
  const lit = (name: string, range: number) =>
    compose(
      bg,
      r3d(node('material', { fill: hex('ffffff') }, node('rect', { width: n(1920, 'px'), height: n(1080, 'px') })), [
        node(name, { at: node('vec3', {}, n(0), n(0), n(100)), intensity: n(2), range: n(range) }),
      ]),
    );
  const a = await draw(lit('point', 600));
  const b = await draw(lit('spotlight', 600));
  assert.deepEqual(Buffer.from(a.data), Buffer.from(b.data));
  assert.ok(lum(px(a, 480, 270)) > 30, `${px(a, 480, 270)}`);
  assert.ok(lum(px(a, 480 + 400, 270)) === 0, 'beyond the range: dark');
});

test('pivot(bottom) + squash + translate: the bouncing ball rests on the bottom edge', async () => {
  const ball = node(
    'translate',
    { y: n(-540, 'px') },
    node(
      'squash',
      { factor: n(0.35) },
      node('pivot', {}, node('material', { emissive_intensity: n(1) }, sphere(120)), node('bottom')),
    ),
  );
  const f = await draw(compose(bg, r3d(ball)));
  const e = extent(f);
  // reference (1920x1080): about 295 x 155 px, on the bottom edge, centred → half that here
  assert.equal(e.y1, H - 1);
  assert.ok(Math.abs(e.x1 - e.x0 + 1 - 148) <= 4, JSON.stringify(e));
  assert.ok(Math.abs(e.y1 - e.y0 + 1 - 78) <= 4, JSON.stringify(e));
  assert.ok(Math.abs((e.x0 + e.x1) / 2 - 479.5) <= 1.5);
});

test('render3d(camera: camera(distance:, fov:)) is honoured', async () => {
  const s = node('material', { emissive_intensity: n(1) }, sphere(100));
  const base = extent(await draw(compose(bg, r3d(s))));
  const same = extent(await draw(compose(bg, r3d(s, [], { camera: node('camera', { distance: n(2165.82) }) }))));
  assert.deepEqual(same, base);
  const near2 = extent(await draw(compose(bg, r3d(s, [], { camera: node('camera', { distance: n(2165.82 / 2) }) }))));
  assert.ok(
    Math.abs((near2.x1 - near2.x0) / (base.x1 - base.x0) - 2) < 0.1,
    `${JSON.stringify(near2)} ${JSON.stringify(base)}`,
  );
  const wide = extent(await draw(compose(bg, r3d(s, [], { camera: node('camera', { fov: n(56, 'deg') }) }))));
  assert.ok(wide.x1 - wide.x0 < (base.x1 - base.x0) * 0.6);
});

test('bloom: a bloom frame differs from the same frame without it, glowing around bright parts', async () => {
  const s = node('material', { emissive_intensity: n(2) }, sphere(100));
  const plain = await draw(compose(bg, r3d(s)));
  const bloom = await draw(compose(bg, r3d(s, [node('bloom', { strength: n(1.5) })])));
  assert.notDeepEqual(Buffer.from(plain.data), Buffer.from(bloom.data));
  // just outside the sphere (radius ≈ 50 px here) the plain frame is black, the bloom frame glows
  assert.ok(lum(px(plain, 480 + 60, 270)) === 0, `${px(plain, 480 + 60, 270)}`);
  assert.ok(lum(px(bloom, 480 + 60, 270)) > 30, `${px(bloom, 480 + 60, 270)}`);
  assert.ok(lum(px(bloom, 5, 5)) < lum(px(bloom, 480 + 100, 270)), 'the glow fades with distance');
  // a second bloom frame gives the same pixels
  const again = await frameAt(page, 0);
  assert.deepEqual(Buffer.from(again.data), Buffer.from(bloom.data));
});

test('image background is stretched to the frame; image fill textures a sphere; compose layer 0 image', async () => {
  const f = await draw(compose(node('fit', {}, img('/img/sunset.png'), node('cover'))));
  const e = extent(f, 0);
  assert.ok(e.x1 - e.x0 > 900 && e.y1 - e.y0 > 500, 'the whole frame shows the image');
  const g = await draw(
    compose(
      bg,
      r3d(node('material', { fill: node('as_texture', {}, img('/img/sunset.png')) }, sphere()), [
        node('ambient', {}, n(1)),
      ]),
    ),
  );
  const c = px(g, 480, 270);
  assert.ok(lum(c) > 30 && !(c[0] === c[1] && c[1] === c[2]), `textured: ${c}`);
  // as_texture as layer 0 is not a background: draws nothing, background black
  const h = await draw(
    compose(
      node('as_texture', {}, img('/img/sunset.png')),
      node('rect', { width: n(100, 'px'), height: n(100, 'px') }),
    ),
  );
  assert.deepEqual(px(h, 5, 5).slice(0, 3), [0, 0, 0]);
});

test('3D meshes intersect 2D planes at z = 0 (one depth buffer)', async () => {
  const s = node('material', { emissive: hex('ff0000'), emissive_intensity: n(1) }, sphere(200));
  const plane = node('rect', { width: n(1920, 'px'), height: n(1080, 'px'), fill: hex('0000ff') });
  for (const order of [
    [r3d(s), plane],
    [plane, r3d(s)],
  ]) {
    const f = await draw(compose(bg, ...order));
    assert.ok(px(f, 480, 270)[0] > 200, 'the front half of the sphere pokes through the plane');
    assert.deepEqual(px(f, 20, 20).slice(0, 3), [0, 0, 255]);
  }
});

test('older runners draw only what they had (viewer.md §9)', async () => {
  const s = node('material', { emissive_intensity: n(1), opacity: n(0.5) }, sphere(100));
  const translucent = compose(bg, r3d(compose(s), [node('point', { intensity: n(5) })]));
  const bloomy = compose(bg, r3d(node('material', { emissive_intensity: n(1) }, sphere(100)), [node('bloom', {})]));
  const at = async (runner: string, tree: unknown) => {
    const r = await load(page, JSON.stringify({ runner, frames: [[0, tree]] }), W, H);
    assert.equal(r.ok, true);
    assert.equal(r.runner, runner);
    return {
      f: await frameAt(page, 0),
      warnings: await page.evaluate(() => (window as any).cmViewer.warnings as string[]),
    };
  };
  assert.ok(near(px((await at('0.0.13', translucent)).f, 480, 270), [128, 128, 128], 2), 'translucent in 0.0.13');
  assert.ok(lum(px((await at('0.0.13', bloomy)).f, 480 + 60, 270)) > 0, 'bloom glow in 0.0.13');
  const v3 = await at('0.0.3', translucent);
  assert.deepEqual(px(v3.f, 480, 270).slice(0, 3), [255, 255, 255], 'opaque before 0.0.5');
  const b3 = await at('0.0.3', bloomy);
  assert.equal(lum(px(b3.f, 480 + 60, 270)), 0, 'no bloom before 0.0.5');
  assert.ok(b3.warnings.some((w) => w.includes('bloom')));
  const v1 = await at('0.0.1', translucent);
  assert.equal(lum(px(v1.f, 480, 270)), 0, 'no nested compose inside render3d in 0.0.1');
  assert.ok(v1.warnings.some((w) => w.includes('point')));
});
