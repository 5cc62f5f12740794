// A job of the same runner and size as the page's previous one keeps that job's glyph geometries (viewer.ts reset):
// a batch of one scene extrudes its text once. The kept geometry draws the same pixels as a fresh build, and a job
// of another size builds its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewer, load, frameAt, viewerSkip } from './helper.js';
import { ownExamplesDir } from '../helpers/shared.js';

let browser: Browser;
let page: Page;
before(async () => {
  if (viewerSkip()) return;
  browser = await launch();
  page = await openViewer(browser, 480, 270);
});
after(async () => {
  await browser?.close();
});

const source = () => readFileSync(join(ownExamplesDir, 'glyphs-3d.cm'), 'utf8');
const built = async () => (await page.evaluate(() => (window as any).cmViewer.stats.geometriesBuilt)) as number;

test(
  'a job of the same runner and size reuses the glyphs of the job before it, with the same pixels',
  { skip: viewerSkip() },
  async () => {
    assert.equal((await load(page, source(), 480, 270)).ok, true);
    const first = Buffer.from((await frameAt(page, 1.5)).data);
    assert.ok((await built()) > 0, 'the first job builds its glyphs');

    assert.equal((await load(page, source(), 480, 270)).ok, true);
    const again = Buffer.from((await frameAt(page, 1.5)).data);
    assert.equal(await built(), 0, 'the second job of that size built geometry again');
    assert.ok(again.equals(first), 'the kept glyphs drew other pixels');

    assert.equal((await load(page, source(), 482, 272)).ok, true);
    await frameAt(page, 1.5);
    assert.ok((await built()) > 0, 'a job of another size builds its own glyphs');
  },
);
