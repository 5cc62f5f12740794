// The real page (dist/viewer, real language) on the shared example sources, compared with the frames the
// reference runner drew (../shared/reference) and with the parity oracles of viewer.md §10. Tests about the page
// itself (caching, redraws, screenshots, image errors) use our own examples and run without the corpus.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  launch,
  openViewer,
  load,
  frameAt,
  px,
  near,
  readPng,
  writePng,
  EXAMPLES,
  realLang,
  viewerSkip,
  type Frame,
} from './helper.js';
import { join } from 'node:path';
import { referenceDir, ownExamplesDir } from '../helpers/shared.js';

let browser: Browser;
let page: Page;
before(async () => {
  if (!realLang) return;
  browser = await launch();
  page = await openViewer(browser, 1920, 1080);
});
after(async () => {
  await browser?.close();
});

const src = (name: string) => readFileSync(`${EXAMPLES}/${name}.cm`, 'utf8');
/** One of our own examples (examples/), named `own/NAME` where a test takes a name. */
const ownSrc = (name: string) => readFileSync(join(ownExamplesDir, `${name}.cm`), 'utf8');
const source = (name: string) => (name.startsWith('own/') ? ownSrc(name.slice(4)) : src(name));
async function render(name: string, t: number, w = 1920, h = 1080): Promise<Frame> {
  const r = await load(page, source(name), w, h);
  assert.equal(r.ok, true, JSON.stringify(r));
  return frameAt(page, t);
}
function compare(a: Frame, b: Frame): { mean: number; bad: number } {
  assert.equal(a.width, b.width);
  assert.equal(a.height, b.height);
  let sum = 0,
    bad = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    let d = 0;
    for (let c = 0; c < 3; c++) d += Math.abs(a.data[i + c] - b.data[i + c]);
    sum += d;
    if (d > 48) bad++;
  }
  return { mean: sum / (a.data.length / 4) / 3, bad: bad / (a.data.length / 4) };
}
function inkExtent(f: Frame, isInk: (p: number[]) => boolean) {
  let x0 = f.width,
    x1 = -1,
    y0 = f.height,
    y1 = -1;
  for (let y = 0; y < f.height; y++)
    for (let x = 0; x < f.width; x++)
      if (isInk(px(f, x, y))) {
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y);
      }
  return { x0, x1, y0, y1 };
}

const opts = { skip: viewerSkip() };
const corpus = (needs: string) => ({ skip: viewerSkip(needs) });

test('examples/hello.cm at 1920x1080: centre #ff3399, corner #14213d', opts, async () => {
  const f = await render('own/hello', 0);
  assert.deepEqual(px(f, 960, 540).slice(0, 3), [255, 51, 153]);
  for (const [x, y] of [
    [0, 0],
    [1919, 1079],
  ])
    assert.ok(near(px(f, x, y), [0x14, 0x21, 0x3d], 2), `${px(f, x, y)}`);
  writePng(f, '/tmp/cm-viewer-hello.png');
});

const cases: [string, number, number, number][] = [
  ['docs-api-quick', 0, 1920, 1080],
  ['fixture-wasm-parity', 1.5, 1920, 1080],
  ['bouncing-ball', 0, 1920, 1080],
  ['bouncing-ball', 1.5, 1920, 1080],
  ['homepage', 0, 1920, 1080],
  ['homepage', 1.5, 1920, 1080],
  ['title', 0, 1920, 1080],
  ['extrude-path', 1.5, 1920, 1080],
  ['plinken-svg', 0, 1080, 1080],
  ['handdrawn', 0, 1080, 1080],
  ['lava-lamp', 0, 1920, 1080],
  ['image-text', 0.5, 1920, 1080],
  ['image-text', 1.7, 1920, 1080],
  ['small-type', 0.5, 1920, 1080],
  ['small-type', 1.5, 1920, 1080],
];
for (const [name, t, w, h] of cases) {
  test(
    `${name}@${t} matches the reference frame`,
    corpus(`examples/${name}.cm and reference/${name}@${t.toFixed(1)}.png`),
    async () => {
      const f = await render(name, t, w, h);
      const ref = readPng(join(referenceDir, `${name}@${t.toFixed(1)}.png`));
      const { mean, bad } = compare(f, ref);
      assert.ok(
        mean < 1.5 && bad < 0.005,
        `mean abs diff ${mean.toFixed(3)}, ${(bad * 100).toFixed(3)} % pixels off by > 16/channel`,
      );
    },
  );
}

// On SwiftShader (the backend the reference frames were drawn on) the extruded-text frames, most under the gallery's
// camera line, are held tighter than the budget above: at most 0.01 % of pixels may differ, by at most 4 per channel.
// Not zero because a glyph run is drawn as instances (viewer/src/meshes/glyph-run.ts): the GPU places each vertex
// with a float32 instance matrix where the reference bakes the whole run's vertices in double precision first, which
// moves a few edge pixels by one or two levels (measured: 1 to 37 pixels a frame, at most 3 levels).
const EXACT_ON_SWIFTSHADER: [string, number][] = [
  ['homepage', 0],
  ['title', 0],
  ['title', 1.5],
  ['handdrawn', 0],
  ['image-text', 0.5],
  ['image-text', 1.7],
  ['small-type', 0.5],
  ['small-type', 1.5],
];
test(
  'on SwiftShader, extruded text and the camera line draw the reference frame within a few pixels of one or two levels',
  corpus('examples/image-text.cm, small-type.cm, title.cm, homepage.cm, handdrawn.cm and their reference frames'),
  async () => {
    const { launchTestChromium } = await import('../helpers/gl.js');
    const ssBrowser = await launchTestChromium('swiftshader');
    try {
      const ssPage = await openViewer(ssBrowser, 1920, 1080);
      for (const [name, t] of EXACT_ON_SWIFTSHADER) {
        const [w, h] = name === 'handdrawn' ? [1080, 1080] : [1920, 1080];
        const r = await load(ssPage, source(name), w, h);
        assert.equal(r.ok, true, JSON.stringify(r));
        const f = await frameAt(ssPage, t);
        const ref = readPng(join(referenceDir, `${name}@${t.toFixed(1)}.png`));
        let differ = 0;
        let most = 0;
        for (let i = 0; i < f.data.length; i += 4) {
          let d = 0;
          for (let c = 0; c < 3; c++) d = Math.max(d, Math.abs(f.data[i + c]! - ref.data[i + c]!));
          if (d > 0) differ++;
          most = Math.max(most, d);
        }
        assert.ok(
          differ <= (w * h) / 10_000 && most <= 4,
          `${name}@${t}: ${differ} pixels differ from the reference, by up to ${most} levels`,
        );
      }
    } finally {
      await ssBrowser.close();
    }
  },
);

test(
  'render3d(camera: camera(distance: 2166)) draws the same bytes as no camera; another camera is honoured',
  opts,
  async () => {
    const scene = (camera: string) =>
      `runner "0.0.3";\nuse std.shapes.*;\nuse std.mesh3d.*;\nuse std.text;\nuse std.lighting.*;\nuse std.scene3d.*;\n` +
      `scene s() -> Frame {\n  let bg = rect(width: 1920px, height: 1080px, fill: #fbf8f3);\n` +
      `  let word = extrude(text.glyph("Camera 60", size: 60px), depth: 20px).material(fill: #e07a5f).rotate(y: 20deg);\n` +
      `  compose [bg, render3d(compose [word], lights: [ambient(0.7), directional(from: vec3(1, 1, 3), intensity: 0.8)]${camera})]\n}\n`;
    const draw = async (camera: string) => {
      const r = await load(page, scene(camera), 1920, 1080);
      assert.equal(r.ok, true, JSON.stringify(r));
      return Buffer.from((await frameAt(page, 0)).data);
    };
    const none = await draw('');
    assert.ok(none.equals(await draw(', camera: camera(distance: 2166)')), 'the gallery line is the fixed camera');
    assert.ok(none.equals(await draw(', camera: camera(distance: 2165px, fov: 28deg)')), 'within a pixel');
    assert.ok(!none.equals(await draw(', camera: camera(distance: 3000)')), 'a camera farther back draws smaller');
  },
);

test(
  '§10 oracles: homepage C extent and colour, bouncing ball extent, title ink extent',
  corpus('examples/homepage.cm and title.cm'),
  async () => {
    const home = await render('homepage', 0);
    const bgc = px(home, 0, 0);
    const e = inkExtent(home, (p) => Math.abs(p[0] - bgc[0]) + Math.abs(p[1] - bgc[1]) + Math.abs(p[2] - bgc[2]) > 30);
    assert.ok(
      Math.abs(e.y0 - 164) <= 2 && Math.abs(e.y1 - 915) <= 2 && Math.abs(e.x0 - 619) <= 2 && Math.abs(e.x1 - 1300) <= 2,
      JSON.stringify(e),
    );
    assert.ok(near(px(home, 700, 540), [138, 140, 248], 4), `${px(home, 700, 540)}`);
    const title = await render('title', 0);
    const te = inkExtent(title, (p) => Math.abs(p[0] - 247) + Math.abs(p[1] - 245) + Math.abs(p[2] - 236) > 30);
    assert.ok(
      Math.abs(te.y0 - 376) <= 3 &&
        Math.abs(te.y1 - 657) <= 3 &&
        Math.abs(te.x0 - 289) <= 3 &&
        Math.abs(te.x1 - 1630) <= 3,
      JSON.stringify(te),
    );
    assert.ok(near(px(title, 5, 5), [247, 245, 236], 1));
  },
);

test('a page screenshot of the canvas shows exactly pixels()', opts, async () => {
  const f = await render('own/glyphs-3d', 1.5);
  const shot = await page.screenshot({ type: 'png', clip: { x: 0, y: 0, width: 1920, height: 1080 } });
  const { PNG } = await import('pngjs');
  const p = PNG.sync.read(shot);
  assert.equal(p.width, 1920);
  let diff = 0;
  for (let i = 0; i < f.data.length; i++) if (p.data[i] !== f.data[i]) diff++;
  assert.equal(diff, 0);
});

test('an image the page cannot load fails the draw with ASS001 naming the path', opts, async () => {
  const missing = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  compose [image("/img/does-not-exist.jpg").fit(cover)]\n}\n`;
  const r = await load(page, missing, 320, 180);
  assert.equal(r.ok, true, "load only sizes the canvas: the image is the draw's business");
  await assert.rejects(
    frameAt(page, 0),
    (e: any) => e.drawError?.code === 'ASS001' && typeof e.drawError.path === 'string' && e.drawError.path.length > 0,
  );
});

test('resources are built once per job and reused across seeks', opts, async () => {
  for (const name of ['own/glyphs-3d', 'own/bounce', 'own/image']) {
    const r = await load(page, source(name), 960, 540);
    assert.equal(r.ok, true);
    const stats = [];
    for (let i = 0; i < 20; i++) {
      await frameAt(page, i / 10);
      stats.push(await page.evaluate(() => (window as any).cmViewer.stats));
    }
    const first = stats[1];
    assert.ok(first.geometriesBuilt > 0);
    for (const s of stats.slice(2)) {
      assert.equal(s.geometries, first.geometries, `${name}: geometries stay`);
      assert.equal(s.textures, first.textures, `${name}: textures stay`);
      assert.equal(s.programs, first.programs, `${name}: programs stay`);
      assert.equal(s.geometriesBuilt, first.geometriesBuilt, `${name}: no geometry is rebuilt`);
    }
  }
});

test('a frame whose sampled tree equals the one on screen is not redrawn, and its pixels stay', opts, async () => {
  await load(page, ownSrc('hello'), 640, 360);
  const a = await frameAt(page, 0.5);
  const b = await frameAt(page, 2.5);
  assert.deepEqual(Buffer.from(a.data), Buffer.from(b.data));
  const st = await page.evaluate(() => (window as any).cmViewer.stats);
  assert.equal(st.drawn, 1, JSON.stringify(st)); // load draws nothing; 0.5 draws, 2.5 is the same tree
  assert.equal(st.skipped, 1);
  await load(page, ownSrc('easings'), 640, 360);
  await frameAt(page, 0.5);
  await frameAt(page, 1.5);
  const st2 = await page.evaluate(() => (window as any).cmViewer.stats);
  assert.equal(st2.drawn, 2, JSON.stringify(st2));
});
