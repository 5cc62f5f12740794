// The service's page draws offscreen (`?offscreen`: viewer/src/msaa-target.ts, its own multisampled target resolved
// only where it is read) and must give the very pixels the canvas gives: frame after frame of a clip (so partial
// redraws), the damaged rectangle as I420 (what a video reads) and then the whole picture as read back (what a PNG
// takes), for a 2D scene, lit 3D glyphs and an image background (whose cache copies out of the drawn picture).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launch, openViewerFrom, bundle, load, viewerSkip } from './helper.js';
import { compile } from '../../src/lang/index.js';
import { examplesDir, ownExamplesDir } from '../helpers/shared.js';

let browser: Browser;
let canvasPage: Page;
let offscreenPage: Page;
before(async () => {
  if (viewerSkip()) return;
  browser = await launch();
  canvasPage = await openViewerFrom(browser, bundle(), 640, 360);
  offscreenPage = await openViewerFrom(browser, bundle(), 640, 360, '?offscreen');
});
after(async () => {
  await browser?.close();
});

/** Draws the value and reads what a video frame reads (the damage as I420), then what a PNG frame reads. */
async function drawAndRead(page: Page, json: string) {
  const r = await page.evaluate(async (j) => {
    const v = window.cmViewer;
    const d = await v.draw(JSON.parse(j), j);
    if (!d.ok) return { error: d.error.message };
    const damage = v.damage;
    return { damage, i420: v.pixelsI420(damage ?? undefined), whole: v.pixelsAsRead() };
  }, json);
  if ('error' in r) throw new Error(r.error);
  return { damage: r.damage, i420: Buffer.from(r.i420), whole: Buffer.from(r.whole) };
}

const cases = [
  { name: 'a bouncing 2D ball', file: join(ownExamplesDir, 'bounce.cm'), w: 640, h: 360 },
  { name: 'a sphere over an image background', file: join(ownExamplesDir, 'image.cm'), w: 480, h: 270 },
  { name: 'lit 3D glyphs (a moving light)', file: join(ownExamplesDir, 'glyphs-3d.cm'), w: 640, h: 360, whole: true },
  {
    name: 'the homepage glyph, turning',
    file: join(examplesDir, 'homepage.cm'),
    w: 640,
    h: 360,
    needs: 'examples/homepage.cm',
  },
];

for (const c of cases) {
  test(
    `an offscreen page reads the pixels the canvas gives, frame after frame: ${c.name}`,
    { skip: viewerSkip(c.needs) },
    async () => {
      const source = readFileSync(c.file, 'utf8');
      const program = compile(source).program!;
      for (const page of [canvasPage, offscreenPage]) assert.equal((await load(page, source, c.w, c.h)).ok, true);
      // the offscreen page's canvas has no multisampled buffer of its own: it really draws elsewhere
      const antialias = (p: Page) =>
        p.evaluate(() => document.querySelector('canvas')!.getContext('webgl2')!.getContextAttributes()!.antialias);
      assert.deepEqual([await antialias(canvasPage), await antialias(offscreenPage)], [true, false]);
      let partial = 0;
      for (let k = 0; k < 8; k++) {
        const json = JSON.stringify(program.sceneAt(k / 10).value);
        const a = await drawAndRead(canvasPage, json);
        const b = await drawAndRead(offscreenPage, json);
        assert.deepEqual(b.damage, a.damage, `frame ${k}: damage`);
        if (a.damage) partial++;
        assert.ok(b.i420.equals(a.i420), `frame ${k}: the damaged rectangle's I420 differs`);
        assert.ok(b.whole.equals(a.whole), `frame ${k}: the picture differs`);
      }
      if (!c.whole) assert.ok(partial > 0, 'no frame was drawn in part');
    },
  );
}
