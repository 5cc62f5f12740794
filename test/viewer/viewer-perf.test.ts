// The viewer's speed-ups must not change a pixel (bench/viewer-frames.ts pins the hashes of every example; these
// tests pin the paths inside one job): an image background is drawn once and then copied back, and the
// metaballs shader skips rays that provably miss.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewer, load, frameAt, EXAMPLES, realLang } from './helper';

let browser: Browser;
let page: Page;
before(async () => { if (!realLang) return; browser = await launch(); page = await openViewer(browser, 1920, 1080); });
after(async () => { await browser?.close(); });

const src = (name: string) => readFileSync(`${EXAMPLES}/${name}.cm`, 'utf8');
const opts = { skip: !realLang && 'src/lang/index.ts missing' };

async function firstFrame(): Promise<Buffer> {
  return Buffer.from((await frameAt(page, 0)).data);
}

for (const [w, h] of [[1920, 1080], [1080, 1080]]) {
  test(`image background at ${w}x${h}: the frame drawn with the background pass equals the frames copied from it`, opts, async () => {
    const r = await load(page, src('bouncing-ball'), w, h);
    assert.equal(r.ok, true, JSON.stringify(r));
    const drawn = await firstFrame(); // the job's first draw: t = 0 with the background pass itself
    const later = await frameAt(page, 1.5); // the stored background copied back
    const again = await frameAt(page, 0);
    assert.equal(again.width, w);
    assert.ok(Buffer.from(again.data).equals(drawn), 't = 0 from the stored background equals the first draw');
    assert.ok(!Buffer.from(later.data).equals(drawn), 'the ball moved');
    // a new job with another background starts over (no stale copy)
    await load(page, src('docs-api-quick'), w, h);
    const r2 = await load(page, src('bouncing-ball'), w, h);
    assert.equal(r2.ok, true);
    assert.ok((await firstFrame()).equals(drawn), 'the same job again gives the same first frame');
    const stats = await page.evaluate(() => (window as any).cmViewer.stats);
    await frameAt(page, 0.7); await frameAt(page, 0.9);
    const stats2 = await page.evaluate(() => (window as any).cmViewer.stats);
    assert.equal(stats2.textures, stats.textures, 'the stored background is one texture for the job, made once');
  });
}

test('metaballs: same pixels whichever frame came before (the shader state carries nothing over)', opts, async () => {
  const r = await load(page, src('lava-lamp'), 1920, 1080);
  assert.equal(r.ok, true);
  const first = await firstFrame();
  await frameAt(page, 1.5);
  const again = await frameAt(page, 0);
  assert.ok(Buffer.from(again.data).equals(first));
  let lava = 0;
  for (let i = 0; i < again.data.length; i += 4) if (again.data[i] > 2 * again.data[i + 2] + 20) lava++;
  assert.ok(lava > again.data.length / 4 * 0.1, `lava pixels ${lava}`);
});
