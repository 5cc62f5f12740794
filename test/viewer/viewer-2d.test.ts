// The viewer page on value trees (JSON test double in place of the language): page API, design frame,
// 2D layers, compose order, transforms, colours, output size rule.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewer, load, frameAt, drawValue, px, near, node, n, hex, compose, arr } from './helper.js';
import { FONT_SERVED_NAME } from '../../viewer/src/font-file.js';

let browser: Browser;
let page: Page;
before(async () => {
  browser = await launch();
  page = await openViewer(browser, 1920, 1080);
});
after(async () => {
  await browser?.close();
});

const oklch = (l: number, c: number, h: number) => ({ kind: 'color', form: 'oklch', l: n(l), c: n(c), h: n(h) });
const bgRect = (w: number, h: number, fill: unknown) => node('rect', { width: n(w, 'px'), height: n(h, 'px'), fill });
const rect = (w: number, h: number, fill: unknown) => node('rect', { width: n(w, 'px'), height: n(h, 'px'), fill });
const BG = [16, 32, 48];

async function draw(tree: unknown, w = 1920, h = 1080, t = 0) {
  const r = await load(page, JSON.stringify(tree), w, h);
  assert.equal(r.ok, true, JSON.stringify(r));
  return frameAt(page, t);
}

test('docs-api-quick: centre #ff3399, background oklch(0.10, 0.04, 280) = (2, 2, 16)', async () => {
  const f = await draw(compose(bgRect(1920, 1080, oklch(0.1, 0.04, 280)), rect(300, 300, hex('ff3399'))));
  assert.equal(f.width, 1920);
  assert.equal(f.height, 1080);
  assert.equal(f.data.length, 1920 * 1080 * 4);
  assert.deepEqual(px(f, 960, 540).slice(0, 3), [255, 51, 153]);
  for (const [x, y] of [
    [0, 0],
    [1919, 0],
    [0, 1079],
    [1919, 1079],
    [700, 540],
  ])
    assert.ok(near(px(f, x, y), [2, 2, 16], 2), `(${x},${y}) ${px(f, x, y)}`);
  // the 300 px square spans columns 810..1109 and rows 390..689
  assert.ok(near(px(f, 812, 392), [255, 51, 153], 2));
  assert.ok(near(px(f, 807, 540), [2, 2, 16], 2));
  assert.ok(near(px(f, 960, 693), [2, 2, 16], 2));
});

test('load result and API state', async () => {
  const r = await load(
    page,
    JSON.stringify({ duration: 2.5, frames: [[0, compose(bgRect(1920, 1080, hex('102030')))]] }),
    640,
    360,
  );
  assert.deepEqual(r, { ok: true, duration: 2.5, width: 640, height: 360, runner: '0.0.13' });
  const st = await page.evaluate(() => {
    const v = (window as any).cmViewer;
    return { ready: v.ready, error: v.error, w: v.width, h: v.height, runner: v.runner, drawn: v.stats.drawn };
  });
  assert.deepEqual(st, { ready: true, error: null, w: 640, h: 360, runner: '0.0.13', drawn: 0 }, 'load draws nothing');
  const f = await frameAt(page, 0);
  assert.equal(f.data.length, 640 * 360 * 4);
  for (const [x, y] of [
    [0, 0],
    [639, 359],
    [320, 180],
  ])
    assert.deepEqual(px(f, x, y), [16, 32, 48, 255]);
});

test('a 1080x1080 scene at 1920x1080 is a centred square with background margins', async () => {
  const f = await draw(compose(bgRect(1080, 1080, hex('102030')), rect(1080, 1080, hex('ff3399'))));
  assert.equal(f.width, 1920);
  for (const x of [0, 300, 418, 1502, 1919]) assert.ok(near(px(f, x, 540), BG, 1), `x=${x} ${px(f, x, 540)}`);
  for (const x of [422, 960, 1497]) assert.ok(near(px(f, x, 540), [255, 51, 153], 1), `x=${x}`);
  for (const y of [2, 1077]) assert.ok(near(px(f, 960, y), [255, 51, 153], 1), `y=${y}`);
});

test('a portrait scene is fitted by height, centred', async () => {
  const f = await draw(compose(bgRect(1080, 1920, hex('102030')), rect(1080, 1920, hex('ffffff'))), 1920, 1080);
  // box: 607.5 → 608 wide, x from 656
  assert.ok(near(px(f, 650, 540), BG, 1));
  assert.ok(near(px(f, 660, 540), [255, 255, 255], 1));
  assert.ok(near(px(f, 1259, 540), [255, 255, 255], 1));
  assert.ok(near(px(f, 1270, 540), BG, 1));
});

test("compose order is painter's order among coplanar layers", async () => {
  const a = await draw(
    compose(bgRect(1920, 1080, hex('102030')), rect(400, 400, hex('ff0000')), rect(200, 200, hex('00ff00'))),
  );
  assert.deepEqual(px(a, 960, 540).slice(0, 3), [0, 255, 0]);
  assert.deepEqual(px(a, 960 + 150, 540).slice(0, 3), [255, 0, 0]);
  const b = await draw(
    compose(bgRect(1920, 1080, hex('102030')), rect(200, 200, hex('00ff00')), rect(400, 400, hex('ff0000'))),
  );
  assert.deepEqual(px(b, 960, 540).slice(0, 3), [255, 0, 0]);
  // nested compose keeps the order inside it
  const c = await draw(
    compose(bgRect(1920, 1080, hex('102030')), compose(rect(400, 400, hex('ff0000')), rect(200, 200, hex('0000ff')))),
  );
  assert.deepEqual(px(c, 960, 540).slice(0, 3), [0, 0, 255]);
});

test('translate: a point at (x, y) px lands at (W/2 + x·Hc/H, Hc/2 − y·Hc/H)', async () => {
  const moved = node('translate', { x: n(400, 'px'), y: n(200, 'px') }, rect(100, 100, hex('ffffff')));
  const f = await draw(compose(bgRect(1920, 1080, hex('102030')), moved));
  assert.deepEqual(px(f, 1360, 340).slice(0, 3), [255, 255, 255]);
  assert.ok(near(px(f, 1312, 292), [255, 255, 255], 1));
  assert.ok(near(px(f, 1407, 387), [255, 255, 255], 1));
  assert.ok(near(px(f, 1306, 340), BG, 1));
  assert.ok(near(px(f, 1414, 340), BG, 1));
  assert.ok(near(px(f, 960, 540), BG, 1));
  // the same at half the output size (scaled by Hc/H)
  const g = await draw(compose(bgRect(1920, 1080, hex('102030')), moved), 960, 540);
  assert.deepEqual(px(g, 680, 170).slice(0, 3), [255, 255, 255]);
  assert.ok(near(px(g, 650, 170), BG, 1));
  // translates add up; a unitless translate is world units (1 world = 360.97 px at H = 1080)
  const twice = node(
    'translate',
    { x: n(-200, 'px') },
    node('translate', { x: n(-200, 'px') }, rect(50, 50, hex('ffffff'))),
  );
  const h = await draw(compose(bgRect(1920, 1080, hex('102030')), twice));
  assert.deepEqual(px(h, 560, 540).slice(0, 3), [255, 255, 255]);
  const world = node('translate', { y: n(1) }, rect(40, 40, hex('ffffff')));
  const k = await draw(compose(bgRect(1920, 1080, hex('102030')), world));
  assert.deepEqual(px(k, 960, Math.round(540 - 360.97)).slice(0, 3), [255, 255, 255]);
  assert.ok(near(px(k, 960, 540), BG, 1));
});

test('rotate sets, scale sets, squash multiplies (T·R·S)', async () => {
  const bar = rect(400, 40, hex('ffffff'));
  const rot = await draw(compose(bgRect(1920, 1080, hex('102030')), node('rotate', { z: n(90, 'deg') }, bar)));
  assert.deepEqual(px(rot, 960, 540 - 180).slice(0, 3), [255, 255, 255]);
  assert.ok(near(px(rot, 960 + 180, 540), BG, 1));
  // an outer rotate replaces the inner one entirely
  const rr = await draw(
    compose(bgRect(1920, 1080, hex('102030')), node('rotate', { x: n(0) }, node('rotate', { z: n(90, 'deg') }, bar))),
  );
  assert.deepEqual(px(rr, 960 + 180, 540).slice(0, 3), [255, 255, 255]);
  const sc = await draw(
    compose(bgRect(1920, 1080, hex('102030')), node('scale', {}, rect(100, 100, hex('ffffff')), n(2))),
  );
  assert.deepEqual(px(sc, 960 + 95, 540).slice(0, 3), [255, 255, 255]);
  assert.ok(near(px(sc, 960 + 105, 540), BG, 1));
  // squash(0.5): y × 0.5, x × √2
  const sq = await draw(
    compose(bgRect(1920, 1080, hex('102030')), node('squash', { factor: n(0.5) }, rect(200, 200, hex('ffffff')))),
  );
  assert.deepEqual(px(sq, 960 + 138, 540).slice(0, 3), [255, 255, 255]);
  assert.ok(near(px(sq, 960 + 146, 540), BG, 1));
  assert.ok(near(px(sq, 960, 540 - 55), BG, 1));
  assert.deepEqual(px(sq, 960, 540 - 45).slice(0, 3), [255, 255, 255]);
});

test('circle reads radius: only; unknown names draw nothing', async () => {
  const f = await draw(
    compose(
      bgRect(1920, 1080, hex('102030')),
      node('circle', { radius: n(100, 'px'), fill: hex('ffffff') }),
      node('translate', { x: n(500, 'px') }, node('circle', { r: n(100, 'px'), fill: hex('ffffff') })),
      node('ellipse', { radius: n(300, 'px') }),
    ),
  );
  assert.deepEqual(px(f, 960 + 95, 540).slice(0, 3), [255, 255, 255]);
  assert.ok(near(px(f, 960 + 72, 540 - 72), BG, 1)); // outside the disc, inside its square
  assert.ok(near(px(f, 1460, 540), BG, 1));
  const warnings = await page.evaluate(() => (window as any).cmViewer.warnings);
  assert.ok(warnings.some((w: string) => w.includes('ellipse')));
});

test('colours: 8-digit hex, oklab and srgb render in their colour; missing fill is white', async () => {
  const f = await draw(
    compose(
      bgRect(1920, 1080, hex('102030')),
      node('translate', { x: n(-600, 'px') }, rect(100, 100, hex('ff3399cc'))),
      node(
        'translate',
        { x: n(-300, 'px') },
        rect(100, 100, { kind: 'color', form: 'srgb', r: n(0), g: n(1), b: n(0) }),
      ),
      node(
        'translate',
        { x: n(0, 'px') },
        rect(100, 100, { kind: 'color', form: 'oklab', l: n(0.627955), a: n(0.224863), b: n(0.125846) }),
      ),
      node('translate', { x: n(300, 'px') }, node('rect', { width: n(100, 'px'), height: n(100, 'px') })),
      node('translate', { x: n(600, 'px') }, rect(100, 100, hex('abc'))),
    ),
  );
  assert.deepEqual(px(f, 360, 540).slice(0, 3), [255, 51, 153]);
  assert.deepEqual(px(f, 660, 540).slice(0, 3), [0, 255, 0]);
  assert.ok(near(px(f, 960, 540), [255, 0, 0], 2), `${px(f, 960, 540)}`);
  assert.deepEqual(px(f, 1260, 540).slice(0, 3), [255, 255, 255]);
  assert.deepEqual(px(f, 1560, 540).slice(0, 3), [0xaa, 0xbb, 0xcc]);
});

test('a bare rect (no compose) gets the 16:9 defaults and fills the frame; a number draws black', async () => {
  const f = await draw(rect(1920, 1080, hex('ff3399')), 640, 360);
  for (const [x, y] of [
    [0, 0],
    [639, 359],
    [320, 180],
  ])
    assert.deepEqual(px(f, x, y).slice(0, 3), [255, 51, 153]);
  const g = await draw(n(1), 640, 360);
  for (const [x, y] of [
    [0, 0],
    [320, 180],
  ])
    assert.deepEqual(px(g, x, y).slice(0, 3), [0, 0, 0]);
});

test('same t gives the same pixels; frames follow t', async () => {
  const tree = {
    duration: 2,
    frames: [
      [0, compose(bgRect(1920, 1080, hex('102030')), rect(100, 100, hex('ff0000')))],
      [1, compose(bgRect(1920, 1080, hex('102030')), rect(100, 100, hex('00ff00')))],
    ],
  };
  await load(page, JSON.stringify(tree), 320, 180);
  const a = await frameAt(page, 0.5),
    b = await frameAt(page, 1.5),
    c = await frameAt(page, 0.5);
  assert.deepEqual(px(a, 160, 90).slice(0, 3), [255, 0, 0]);
  assert.deepEqual(px(b, 160, 90).slice(0, 3), [0, 255, 0]);
  assert.deepEqual(Buffer.from(a.data), Buffer.from(c.data));
});

test('errors come back as data, never as a throw: draw before load, a value that is no tree, an unknown runner', async () => {
  const p = await openViewer(browser, 320, 180);
  const early = await drawValue(p, compose(bgRect(1920, 1080, hex('102030'))));
  assert.deepEqual(early, { ok: false, error: { code: 'not_loaded', message: 'draw before a successful load' } });
  const badRunner = await p.evaluate(() => (window as any).cmViewer.load({ width: 320, height: 180, runner: '9.9.9' }));
  assert.equal(badRunner.ok, false);
  assert.equal(badRunner.error.code, 'bad_runner');
  const badSize = await p.evaluate(() => (window as any).cmViewer.load({ width: 0, height: 180, runner: '0.0.13' }));
  assert.equal(badSize.error.code, 'bad_size');
  assert.equal((await load(p, JSON.stringify(compose(bgRect(1920, 1080, hex('102030')))), 320, 180)).ok, true);
  const notTree = await p.evaluate(() => (window as any).cmViewer.draw(42));
  assert.deepEqual(notTree, { ok: false, error: { code: 'bad_value', message: 'not a value tree' } });
  assert.deepEqual(await p.evaluate(() => (window as any).cmViewer.error), {
    code: 'bad_value',
    message: 'not a value tree',
  });
  // the page still draws after an error
  const f = await frameAt(p, 0);
  assert.deepEqual(px(f, 160, 90), [16, 32, 48, 255]);
  await p.close();
});

test('a missing image fails the draw with ASS001 and its path', async () => {
  const tree = compose(node('fit', {}, node('image', {}, { kind: 'string', raw: '"/img/nope.jpg"' }), node('cover')));
  const r = await load(page, JSON.stringify(tree), 320, 180);
  assert.equal(r.ok, true);
  const d = await drawValue(page, tree);
  assert.deepEqual(d, {
    ok: false,
    error: { code: 'ASS001', message: 'image "/img/nope.jpg" could not be loaded', path: '/img/nope.jpg' },
  });
  const st = await page.evaluate(() => ({
    ready: (window as any).cmViewer.ready,
    code: (window as any).cmViewer.error?.code,
  }));
  assert.deepEqual(st, { ready: true, code: 'ASS001' });
});
void arr;

test('a missing font fails the load; the next load fetches it again', async () => {
  const p = await openViewer(browser, 320, 180);
  const font = `**/${FONT_SERVED_NAME}`;
  await p.route(font, (route) => route.fulfill({ status: 404, body: 'gone' }));
  const tree = JSON.stringify(compose(bgRect(1920, 1080, hex('102030'))));
  const r = await load(p, tree, 320, 180);
  assert.equal(r.ok, false);
  assert.ok(r.message.includes(FONT_SERVED_NAME), r.message);
  await p.unroute(font);
  const r2 = await load(p, tree, 320, 180);
  assert.equal(r2.ok, true, JSON.stringify(r2));
  await p.close();
});
