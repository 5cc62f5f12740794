// Issue 37 through the real drawing page (headless Chromium): the three kinds of source cmotion renders and
// d7952b0 refused now compile, load and draw what the spec says they draw. Each would fail on d7952b0 at load():
// NAM003 for the unknown anchor and for the lambda default, EVL009 for the page of text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewer, load, frameAt, viewerSkip, px, near, type Frame } from './helper.js';
import { longTextScene } from '../render/compat-scenes.js';

let browser: Browser;
let page: Page;
before(async () => {
  if (viewerSkip()) return;
  browser = await launch();
  page = await openViewer(browser, 320, 180);
});
after(async () => {
  await browser?.close();
});

async function draw(source: string, width = 320, height = 180): Promise<Frame> {
  const r = await load(page, source, width, height);
  assert.ok(r.ok, JSON.stringify(r));
  return frameAt(page, 0);
}

const ball = (pivot: string) => `runner "0.0.13";
use std.shapes.*;
use std.mesh3d.*;
use std.scene3d.*;
use std.lighting.*;
scene s() -> Frame {
  compose [
    rect(width: 320px, height: 180px, fill: #ffffff),
    render3d(sphere(r: 40px).material(fill: #e63946)${pivot}, lights: [ambient(1.0)])
  ]
}
`;

test(
  'an unknown anchor under a glob import draws as the spec says: pivot(middle) shifts nothing',
  { skip: viewerSkip() },
  async () => {
    const plain = await draw(ball(''));
    const middle = await draw(ball('.pivot(middle)'));
    const bottom = await draw(ball('.pivot(bottom)'));
    // the ball is red at the centre, the corner is the background
    const c = px(middle, 160, 90);
    assert.ok(c[0] > 100 && c[0] > 2 * c[1] && c[0] > 2 * c[2], `centre ${c}`); // the lit red ball
    assert.ok(near(px(middle, 5, 5), [255, 255, 255]), `corner ${px(middle, 5, 5)}`);
    // an unknown anchor gives a group with no offset (viewer.md §5.7): the same pixels as no pivot at all
    assert.deepEqual(Buffer.from(middle.data).equals(Buffer.from(plain.data)), true);
    // while a known one moves the ball (so the comparison above can tell)
    assert.equal(Buffer.from(bottom.data).equals(Buffer.from(plain.data)), false);
  },
);

test('a lambda default that reads an earlier parameter draws its value', { skip: viewerSkip() }, async () => {
  const f = await draw(`runner "0.0.13";
use std.shapes.*;
scene s() -> Frame {
  let bar = |i: Number, w: Length = i * 40px| -> Layer { rect(width: w, height: 180px, fill: #1d3557) };
  compose [rect(width: 320px, height: 180px, fill: #ffffff), bar(4)]
}
`);
  // w = 4 × 40 px = 160 px, centred: x 80..240 dark, outside white
  for (const x of [90, 160, 230]) assert.ok(near(px(f, x, 90), [29, 53, 87], 6), `x ${x}: ${px(f, x, 90)}`);
  for (const x of [70, 250]) assert.ok(near(px(f, x, 90), [255, 255, 255], 6), `x ${x}: ${px(f, x, 90)}`);
});

test(
  'a page of 4,000 characters of text draws its 50 lines, and nothing outside them',
  { skip: viewerSkip(), timeout: 600_000 },
  async () => {
    const W = 640,
      H = 360;
    const f = await draw(longTextScene(4000), W, H);
    const bg = [241, 250, 238];
    const dark = (x: number, y: number) => {
      const p = px(f, x, y);
      return p[0] + p[1] + p[2] < 3 * 200;
    };
    // rows: count dark pixels per row; text covers rows from the top line to the bottom line (y 490 .. -490 design
    // px, 16 px glyphs): at a third of 1920x1080, about rows 14 .. 346; ink in most of the 50 lines
    let inkRows = 0;
    let firstInk = H,
      lastInk = -1,
      leftInk = W,
      rightInk = -1;
    for (let y = 0; y < H; y++) {
      let n = 0;
      for (let x = 0; x < W; x++)
        if (dark(x, y)) {
          n++;
          leftInk = Math.min(leftInk, x);
          rightInk = Math.max(rightInk, x);
        }
      if (n > 0) {
        inkRows++;
        firstInk = Math.min(firstInk, y);
        lastInk = Math.max(lastInk, y);
      }
    }
    assert.ok(firstInk < 30 && lastInk > H - 30, `ink from row ${firstInk} to ${lastInk}`);
    assert.ok(inkRows > H / 3, `${inkRows} rows with ink`);
    // 80 characters of 16 px are about 700 design px wide, centred: the margins stay the background
    assert.ok(leftInk > 40 && rightInk < W - 40, `ink from column ${leftInk} to ${rightInk}`);
    assert.ok(near(px(f, 5, H / 2), bg, 3), `margin ${px(f, 5, H / 2)}`);
  },
);
