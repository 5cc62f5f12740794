// Partial redraw (viewer/src/damage.ts): a page that draws a clip frame after frame redraws only the rectangle its
// changed layers cover, and must end with exactly the pixels of a page that draws each frame from scratch. The
// page API reports that rectangle (`damage`) and reads it back alone (`pixels(rect)`, `pixelsI420(rect)`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewer, load, frameAt, viewerSkip, drawValue, compose, node, n, hex } from './helper.js';
import { ownExamplesDir, examplesDir } from '../helpers/shared.js';
import { compile } from '../../src/lang/index.js';
import { MOVING, LAYERED, LIGHT_RAMP, SPIN } from '../helpers/video.js';

let browser: Browser;
let stepping: Page;
let fresh: Page;
before(async () => {
  if (viewerSkip()) return;
  browser = await launch();
  stepping = await openViewer(browser, 640, 360);
  fresh = await openViewer(browser, 640, 360);
});
after(async () => {
  await browser?.close();
});

type Rect = { x: number; y: number; width: number; height: number };
const damageOf = (page: Page) => page.evaluate(() => (window as any).cmViewer.damage as Rect | null);

const own = (f: string) => readFileSync(join(ownExamplesDir, f), 'utf8');
const corpus = (f: string) => readFileSync(join(examplesDir, f), 'utf8');

const cases: {
  name: string;
  source: () => string;
  times: number[];
  /** at least one frame after the first is drawn in part */
  partial: boolean;
  needs?: string;
}[] = [
  { name: 'a 2D square sliding', source: () => MOVING, times: [0, 0.1, 0.2, 0.5, 0.9], partial: true },
  { name: 'overlapping 2D layers', source: () => LAYERED, times: [0, 0.2, 0.4, 0.6, 0.8], partial: true },
  { name: 'a turning, pulsing 3D glyph', source: () => SPIN, times: [0, 0.1, 0.2, 0.7], partial: true },
  // its point light moves: every lit pixel may change
  { name: 'glyphs-3d.cm', source: () => own('glyphs-3d.cm'), times: [0, 0.1, 1.5], partial: false },
  { name: 'a sphere over an image background', source: () => own('image.cm'), times: [0, 0.2, 0.4], partial: true },
  { name: 'a changing light', source: () => LIGHT_RAMP, times: [0, 0.3, 0.6], partial: false },
  { name: 'metaballs', source: () => own('blobs.cm'), times: [0, 0.1, 0.2], partial: false },
  {
    name: 'homepage',
    source: () => corpus('homepage.cm'),
    times: [0, 1 / 30, 2 / 30, 1.5],
    partial: true,
    needs: 'examples/homepage.cm',
  },
  {
    name: 'bouncing-ball',
    source: () => corpus('bouncing-ball.cm'),
    times: [0, 0.1, 0.2, 0.7],
    partial: true,
    needs: 'examples/bouncing-ball.cm',
  },
  {
    name: 'bloom (plinken-svg)',
    source: () => corpus('plinken-svg.cm'),
    times: [0, 0.5, 1],
    partial: false,
    needs: 'examples/plinken-svg.cm',
  },
];

for (const c of cases) {
  test(
    `frames drawn one after another, in part where they changed, equal frames drawn from scratch: ${c.name}`,
    { skip: viewerSkip(c.needs) },
    async () => {
      const source = c.source();
      assert.equal((await load(stepping, source, 640, 360)).ok, true);
      const damages: (Rect | null)[] = [];
      for (const t of c.times) {
        const got = await frameAt(stepping, t);
        damages.push(await damageOf(stepping));
        assert.equal((await load(fresh, source, 640, 360)).ok, true); // a new job: nothing on the canvas to keep
        const want = await frameAt(fresh, t);
        assert.equal(await damageOf(fresh), null, 'a first frame is drawn whole');
        let diff = 0;
        for (let i = 0; i < want.data.length; i++) if (got.data[i] !== want.data[i]) diff++;
        assert.equal(diff, 0, `t = ${t}: ${diff} bytes differ from the frame drawn from scratch`);
      }
      assert.equal(damages[0], null, 'the first frame of a job is drawn whole');
      const inPart = damages.filter((d) => d !== null) as Rect[];
      assert.equal(inPart.length > 0, c.partial, `damage per frame: ${JSON.stringify(damages)}`);
      for (const d of inPart) {
        assert.ok(d.width * d.height < 640 * 360, JSON.stringify(d));
        for (const v of [d.x, d.y, d.width, d.height])
          assert.equal(v % 2, 0, `even sides and offsets: ${JSON.stringify(d)}`);
      }
    },
  );
}

test(
  'damage covers where the moving layer was and where it is, and pixels(rect) reads just that',
  { skip: viewerSkip() },
  async () => {
    // a 100 px square on a 640x360 canvas (1 px = 1/3 design px): at x = 0 and then 300 design px right
    const frame = (x: number) =>
      compose(
        node('rect', { width: n(1920, 'px'), height: n(1080, 'px'), fill: hex('000000') }),
        node(
          'translate',
          { x: n(x, 'px') },
          node('rect', { width: n(300, 'px'), height: n(300, 'px'), fill: hex('ffffff') }),
        ),
      );
    assert.equal((await load(stepping, '{"duration": 1}', 640, 360)).ok, true);
    assert.equal((await drawValue(stepping, frame(0))).ok, true);
    assert.equal((await drawValue(stepping, frame(300))).ok, true);
    const d = (await damageOf(stepping))!;
    assert.ok(d, 'the second frame is drawn in part');
    // the square spans x 270..370 then 370..470 and y 130..230: the damage holds both, a few pixels of margin at most
    assert.ok(d.x <= 270 && d.x >= 264 && d.x + d.width >= 470 && d.x + d.width <= 476, JSON.stringify(d));
    assert.ok(d.y <= 130 && d.y >= 124 && d.y + d.height >= 230 && d.y + d.height <= 236, JSON.stringify(d));
    const r = await stepping.evaluate((rect) => {
      const v = (window as any).cmViewer;
      const all = v.pixels() as Uint8Array;
      const part = v.pixels(rect) as Uint8Array;
      const allY = v.pixelsI420() as Uint8Array;
      const partY = v.pixelsI420(rect) as Uint8Array;
      let rgbaDiff = 0,
        yDiff = 0;
      for (let y = 0; y < rect.height; y++)
        for (let x = 0; x < rect.width * 4; x++)
          if (part[y * rect.width * 4 + x] !== all[(rect.y + y) * 640 * 4 + rect.x * 4 + x]) rgbaDiff++;
      for (let y = 0; y < rect.height; y++)
        for (let x = 0; x < rect.width; x++)
          if (partY[y * rect.width + x] !== allY[(rect.y + y) * 640 + rect.x + x]) yDiff++;
      const errors: string[] = [];
      for (const bad of [
        { x: 1, y: 0, width: 2, height: 2 },
        { x: 0, y: 0, width: 642, height: 2 },
      ])
        try {
          v.pixelsI420(bad);
        } catch (e) {
          errors.push((e as Error).name);
        }
      return { rgbaDiff, yDiff, partLength: part.length, errors };
    }, d);
    assert.equal(r.partLength, d.width * d.height * 4);
    assert.equal(r.rgbaDiff, 0);
    assert.equal(r.yDiff, 0);
    assert.deepEqual(r.errors, ['RangeError', 'RangeError']);
  },
);

test(
  'a frame after one with bloom is drawn whole: the glow left outside the changed layer goes too',
  { skip: viewerSkip() },
  async () => {
    const scene = (lights: string) => `runner "0.0.5";
use std.shapes.*;
use std.scene3d.*;
use std.lighting.*;
scene s() -> Frame {
  compose [rect(width: 1920px, height: 1080px, fill: #000000),
           render3d(sphere(r: 200px).material(fill: #ffffff, emissive: #ffffff, emissive_intensity: 2.0),
                    lights: [${lights}])]
}
`;
    const value = (src: string) => compile(src).program!.sceneAt(0).value;
    const doc = JSON.stringify({
      duration: 1,
      runner: '0.0.5',
      frames: [
        [0, value(scene('ambient(0.5), bloom(strength: 2.0, radius: 0.8, threshold: 0.1)'))],
        [0.5, value(scene('ambient(0.5)'))],
      ],
    });
    assert.equal((await load(stepping, doc, 640, 360)).ok, true);
    await frameAt(stepping, 0);
    const got = await frameAt(stepping, 0.5);
    assert.equal(await damageOf(stepping), null);
    assert.equal((await load(fresh, doc, 640, 360)).ok, true);
    const want = await frameAt(fresh, 0.5);
    let diff = 0;
    for (let i = 0; i < want.data.length; i++) if (got.data[i] !== want.data[i]) diff++;
    assert.equal(diff, 0, `${diff} bytes differ from the frame drawn from scratch`);
  },
);
