// The editor's own examples work as chosen: an example that draws an image (examples/image.cm) brings its image
// (bundled from examples/img/, uploaded and mapped by the page itself), so its preview and its render draw it; and a
// diagnostic's hint is shown once, not in both its message and its help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownExamplesDir } from '../helpers/shared.js';
import {
  decodePng,
  differingPixels,
  openEditor,
  closeEditor,
  pixelAt,
  previewPixels,
  previewSettled,
  rigForFile,
  LIMIT,
  WAIT_MS,
} from './helpers.js';

const rig = rigForFile();

test(
  'choosing image.cm maps its own image: the preview draws the new scene and Render PNG draws the image',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await page.waitForFunction(() => window.cmEditor.firstPreviewMs !== null, null, { timeout: WAIT_MS });
    const first = await previewPixels(page);
    const before = await page.evaluate(() => window.cmEditor.previews);
    await page.locator('#example').selectOption('image.cm');
    const source = readFileSync(join(ownExamplesDir, 'image.cm'), 'utf8');
    await page.waitForFunction((s) => window.cmEditor.source === s, source, { timeout: WAIT_MS });
    await previewSettled(page, before);
    const status = page.locator('#preview-status');
    assert.doesNotMatch((await status.textContent()) ?? '', /ASS001/);
    assert.equal(await status.getAttribute('class').then((c) => /\bbad\b/.test(c ?? '')), false);
    assert.match((await page.locator('#assets').textContent()) ?? '', /\/img\/sunset\.png → asset_[0-9a-f]{32}/);
    const shown = await previewPixels(page);
    if (shown.width === first.width && shown.height === first.height)
      assert.ok(differingPixels(first, shown) > (shown.width * shown.height) / 4, 'the preview shows the new scene');

    await page.locator('#width').fill('320');
    await page.locator('#height').fill('180');
    await page.locator('[data-testid="render-png"]').click();
    await page.locator('[data-testid="result"] img').waitFor({ timeout: 120_000 });
    assert.doesNotMatch((await page.locator('#job-status').textContent()) ?? '', /failed|ASS001/);
    const url = await page.locator('[data-testid="result"] img').getAttribute('src');
    const out = decodePng((await rig.t.app.inject({ url: url! })).rawPayload);
    // the frame's centre is the background image's centre (fit: cover), away from the globe on the left
    const sunset = decodePng(readFileSync(join(ownExamplesDir, 'img', 'sunset.png')));
    const want = pixelAt(sunset, sunset.width / 2, sunset.height / 2);
    const got = pixelAt(out, out.width / 2, out.height / 2);
    for (let c = 0; c < 3; c++) assert.ok(Math.abs(got[c]! - want[c]!) <= 16, `centre ${got} vs the image's ${want}`);
    await closeEditor(rig, page);
  },
);

test("a hint such as did you mean 'sq'? is shown once in the diagnostics list", LIMIT, async () => {
  const page = await openEditor(rig);
  const wrong =
    'runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  let sq = rect(width: 10px, height: 10px);\n  compose [sqq]\n}\n';
  // a source with an error draws no preview: only its diagnostics are waited for
  await page.evaluate((s) => window.cmEditor.setSource(s), wrong);
  const item = page.locator('[data-testid="diagnostics"] [data-code="NAM003"]');
  await item.waitFor({ timeout: WAIT_MS });
  const text = (await item.textContent()) ?? '';
  assert.equal(text.split("did you mean 'sq'?").length - 1, 1, text);
  assert.match(text, /declare the name before using it/, 'the rest of the help is still there');
  await closeEditor(rig, page);
});

test(
  'the Example menu names the example the editor holds: the one a fresh page opens, then none once edited',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await page.waitForFunction(() => window.cmEditor.firstPreviewMs !== null, null, { timeout: WAIT_MS });
    const menu = page.locator('#example');
    // a fresh page holds the homepage example (wave.cm), and the menu says so rather than "Choose an example…"
    assert.equal(
      await page.evaluate(() => window.cmEditor.source),
      readFileSync(join(ownExamplesDir, 'wave.cm'), 'utf8'),
    );
    assert.equal(await menu.inputValue(), 'wave.cm');
    await page.evaluate(() => {
      const v = window.cmEditor.view;
      v.dispatch({ changes: { from: 0, insert: '// mine now\n' } });
    });
    await page.waitForFunction(() => (document.getElementById('example') as HTMLSelectElement).value === '', null, {
      timeout: WAIT_MS,
    });
    await menu.selectOption('hello.cm');
    await page.waitForFunction(
      (s) => window.cmEditor.source === s,
      readFileSync(join(ownExamplesDir, 'hello.cm'), 'utf8'),
      {
        timeout: WAIT_MS,
      },
    );
    assert.equal(await menu.inputValue(), 'hello.cm');
    await closeEditor(rig, page);
  },
);
