// The page's picture as read back (cmViewer.pixelsAsRead(), viewer/src/viewer.ts), which the service's opaque PNG
// frames take: the rows of pixels() bottom first, the same colours, and through the PNG encoder (rows packed
// bottom-up, alpha dropped) the very bytes of the PNG of pixels(), for every kind of frame; pixels() is unchanged
// after it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewer, load, frameAt, viewerSkip } from './helper.js';
import { ownExamplesDir } from '../helpers/shared.js';
import { encodePng } from '../../src/render/png.js';

let browser: Browser;
let page: Page;
before(async () => {
  if (viewerSkip()) return;
  browser = await launch();
  page = await openViewer(browser, 640, 360);
});
after(async () => {
  await browser?.close();
});

const asRead = async () =>
  Buffer.from(
    (await page.evaluate(() => (window as any).cmViewer.pixelsAsRead() as Uint8Array)) as unknown as ArrayLike<number>,
  );
const pixels = async () =>
  Buffer.from(
    (await page.evaluate(() => (window as any).cmViewer.pixels() as Uint8Array)) as unknown as ArrayLike<number>,
  );

const cases = [
  { name: '2D shapes', file: 'shapes.cm', w: 640, h: 360, t: 1 },
  { name: 'lit 3D glyphs', file: 'glyphs-3d.cm', w: 643, h: 361, t: 1.5 },
  { name: 'image background', file: 'image.cm', w: 480, h: 270, t: 0.5 },
];

for (const c of cases) {
  test(
    `pixelsAsRead() is pixels() bottom row first, and its PNG is pixels()'s: ${c.name} at ${c.w}x${c.h}`,
    { skip: viewerSkip() },
    async () => {
      const r = await load(page, readFileSync(join(ownExamplesDir, c.file), 'utf8'), c.w, c.h);
      assert.equal(r.ok, true, JSON.stringify(r));
      const f = await frameAt(page, c.t);
      const raw = await asRead();
      assert.equal(raw.length, c.w * c.h * 4);
      const row = c.w * 4;
      let diff = 0;
      for (let y = 0; y < c.h; y++)
        for (let x = 0; x < row; x++) if ((x & 3) !== 3 && raw[(c.h - 1 - y) * row + x] !== f.data[y * row + x]) diff++;
      assert.equal(diff, 0, `${diff} colour bytes differ`);
      const png = encodePng(raw, c.w, c.h, 6, { bottomUp: true, opaque: true });
      assert.ok(png.equals(encodePng(f.data, c.w, c.h)), 'the PNGs differ');
      assert.ok((await pixels()).equals(Buffer.from(f.data)), 'pixels() changed after pixelsAsRead()');
    },
  );
}
