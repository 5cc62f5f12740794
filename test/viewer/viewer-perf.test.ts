// The viewer's speed-ups must not change a pixel (bench/viewer-frames.ts pins the hashes of every example; these
// tests pin the paths inside one job): an image background is drawn once and then copied back, and the
// metaballs shader skips rays that provably miss.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewer, load, frameAt, realLang, viewerSkip } from './helper.js';
import { ownExamplesDir } from '../helpers/shared.js';

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

// Our own examples (examples/): image.cm has an image background and a turning globe, blobs.cm metaballs.
const src = (name: string) => readFileSync(join(ownExamplesDir, `${name}.cm`), 'utf8');
const opts = { skip: viewerSkip() };

async function firstFrame(): Promise<Buffer> {
  return Buffer.from((await frameAt(page, 0)).data);
}

for (const [w, h] of [
  [1920, 1080],
  [1080, 1080],
]) {
  test(
    `image background at ${w}x${h}: the frame drawn with the background pass equals the frames copied from it`,
    opts,
    async () => {
      const r = await load(page, src('image'), w, h);
      assert.equal(r.ok, true, JSON.stringify(r));
      const drawn = await firstFrame(); // the job's first draw: t = 0 with the background pass itself
      const later = await frameAt(page, 1.5); // the stored background copied back
      const again = await frameAt(page, 0);
      assert.equal(again.width, w);
      assert.ok(Buffer.from(again.data).equals(drawn), 't = 0 from the stored background equals the first draw');
      assert.ok(!Buffer.from(later.data).equals(drawn), 'the globe turned');
      // a new job with another background starts over (no stale copy)
      await load(page, src('hello'), w, h);
      const r2 = await load(page, src('image'), w, h);
      assert.equal(r2.ok, true);
      assert.ok((await firstFrame()).equals(drawn), 'the same job again gives the same first frame');
      const stats = await page.evaluate(() => (window as any).cmViewer.stats);
      await frameAt(page, 0.7);
      await frameAt(page, 0.9);
      const stats2 = await page.evaluate(() => (window as any).cmViewer.stats);
      assert.equal(stats2.textures, stats.textures, 'the stored background is one texture for the job, made once');
    },
  );
}

test('metaballs: same pixels whichever frame came before (the shader state carries nothing over)', opts, async () => {
  const r = await load(page, src('blobs'), 1920, 1080);
  assert.equal(r.ok, true);
  const first = await firstFrame();
  await frameAt(page, 1.5);
  const again = await frameAt(page, 0);
  assert.ok(Buffer.from(again.data).equals(first));
  let blob = 0; // the blobs are red-orange on a dark blue ground
  for (let i = 0; i < again.data.length; i += 4) if (again.data[i] > 2 * again.data[i + 2] + 20) blob++;
  assert.ok(blob > (again.data.length / 4) * 0.05, `blob pixels ${blob}`);
});
