// The page's I420 read back (Viewer.pixelsI420, viewer/src/viewer.ts): read back once and converted in the page,
// it must give exactly the bytes of Node's rgbaToI420 of the same frame's RGBA (the rows flipped right, the picture
// unpadded), for every kind of frame (2D, lit 3D, image background, metaballs, bloom), and leave the viewer as it was.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewer, load, frameAt, viewerSkip } from './helper.js';
import { ownExamplesDir, examplesDir } from '../helpers/shared.js';
import { rgbaToI420 } from '../../src/render/rgba-to-i420.js';

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

const i420 = async () =>
  Buffer.from(
    (await page.evaluate(() => (window as any).cmViewer.pixelsI420() as Uint8Array)) as unknown as ArrayLike<number>,
  );

const cases: { name: string; file: string; w: number; h: number; t: number; needs?: string }[] = [
  { name: '2D shapes', file: join(ownExamplesDir, 'shapes.cm'), w: 640, h: 360, t: 1 },
  { name: 'lit 3D glyphs', file: join(ownExamplesDir, 'glyphs-3d.cm'), w: 642, h: 362, t: 1.5 },
  { name: 'image background', file: join(ownExamplesDir, 'image.cm'), w: 480, h: 270, t: 0.5 },
  { name: 'metaballs', file: join(ownExamplesDir, 'blobs.cm'), w: 322, h: 182, t: 1 },
  {
    name: 'bloom (plinken-svg)',
    file: join(examplesDir, 'plinken-svg.cm'),
    w: 360,
    h: 360,
    t: 1.5,
    needs: 'examples/plinken-svg.cm',
  },
];

for (const c of cases) {
  test(
    `pixelsI420() is rgbaToI420(pixels()) byte for byte: ${c.name} at ${c.w}x${c.h}`,
    { skip: viewerSkip(c.needs) },
    async () => {
      const r = await load(page, readFileSync(c.file, 'utf8'), c.w, c.h);
      assert.equal(r.ok, true, JSON.stringify(r));
      const f = await frameAt(page, c.t);
      const got = await i420();
      const want = rgbaToI420(f.data, c.w, c.h);
      assert.equal(got.length, (c.w * c.h * 3) / 2);
      let diff = 0;
      for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) diff++;
      assert.equal(diff, 0, `${diff} of ${want.length} bytes differ`);
    },
  );
}

test(
  'a read back leaves the drawing as it was: the next frames are the same pixels as without it',
  { skip: viewerSkip() },
  async () => {
    const source = readFileSync(join(ownExamplesDir, 'glyphs-3d.cm'), 'utf8');
    await load(page, source, 640, 360);
    const a = Buffer.from((await frameAt(page, 0.5)).data);
    const b = Buffer.from((await frameAt(page, 1)).data);
    await load(page, source, 640, 360);
    await frameAt(page, 0.5);
    await i420();
    const b2 = Buffer.from((await frameAt(page, 1)).data);
    await i420();
    const a2 = Buffer.from((await frameAt(page, 0.5)).data);
    assert.ok(b2.equals(b), 'the frame after a read back');
    assert.ok(a2.equals(a), 'the frame after two read backs');
  },
);
