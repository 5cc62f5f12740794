// The source as a file and as a link (issue 35), in the real Chromium against the real service: `#source=` links,
// Open… and a dropped .cm file, Save source (save dialog or download), Copy, and Clear that undo takes back. A share
// link opened over work stored in the browser (a new tab of the same origin) keeps that work one undo step back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { openEditor, closeEditor, setSource, rigForFile, LIMIT, WAIT_MS } from './helpers.js';
import type { Page } from 'playwright-core';

const rig = rigForFile();

/** A source with what URL encoding must carry: spaces, +, &, #, %, a newline and a non-ASCII letter. */
const SOURCE = `runner "0.0.3";
use std.shapes.*;
// 1 + 1 & #hash 100% — é
scene s() -> Frame {
  compose [rect(width: 640px, height: 360px, fill: #102030)]
}
`;

const sourceOf = (page: Page) => page.evaluate(() => window.cmEditor.source);

async function sourceBecomes(page: Page, want: string): Promise<void> {
  await page.waitForFunction((w) => window.cmEditor.source === w, want, { timeout: WAIT_MS });
}

test(
  'a #source=<urlencoded> link opens its source, as encodeURIComponent or form encoding writes it',
  LIMIT,
  async () => {
    const a = await openEditor(rig, `#source=${encodeURIComponent(SOURCE)}`);
    await sourceBecomes(a, SOURCE);
    await closeEditor(rig, a);
    // form encoding writes a space as + (and a + as %2B)
    const b = await openEditor(rig, `#${new URLSearchParams({ source: SOURCE })}`);
    await sourceBecomes(b, SOURCE);
    // an edit makes the link stale: the fragment goes, as a #s= one does
    await b.evaluate(() => window.cmEditor.setSource(window.cmEditor.source + '\n'));
    assert.equal(await b.evaluate(() => location.hash), '');
    await closeEditor(rig, b);
  },
);

test(
  'a share link (#source= or #s=) never destroys the stored source: it comes in as an edit that undo takes back',
  LIMIT,
  async () => {
    const mine = SOURCE.replace('#102030', '#445566');
    const page = await openEditor(rig);
    await setSource(page, mine);
    // another tab of the same origin opens a link someone sent (or a page opened for them)
    const links = [
      `#source=${encodeURIComponent(SOURCE)}`,
      `#s=${deflateRawSync(Buffer.from(SOURCE.replace('#102030', '#ff3399'))).toString('base64url')}`,
    ];
    const tab = await page.context().newPage();
    try {
      for (const link of links) {
        await tab.goto('about:blank');
        await tab.goto(`${rig.base}/${link}`);
        await tab.waitForFunction(() => window.cmEditor !== undefined, null, { timeout: WAIT_MS });
        const shared = await sourceOf(tab);
        assert.notEqual(shared, mine, link);
        assert.match((await tab.locator('#preview-status').textContent()) ?? '', /previous source is one undo away/);
        await tab.locator('.cm-content').click();
        await tab.keyboard.press('Control+z');
        await sourceBecomes(tab, mine);
        // and redo goes back to the link's
        await tab.keyboard.press('Control+y');
        await sourceBecomes(tab, shared);
        await tab.keyboard.press('Control+z');
        await sourceBecomes(tab, mine);
        // the undone source is what the browser stores again (the store follows the check, a moment after an edit)
        await tab.waitForFunction((m) => localStorage.getItem('cmrender.editor.source') === m, mine, {
          timeout: WAIT_MS,
        });
      }
      // the work is what the browser keeps again: the first tab reloaded shows it
      await page.reload();
      await page.waitForFunction(() => window.cmEditor !== undefined, null, { timeout: WAIT_MS });
      assert.equal(await sourceOf(page), mine);
    } finally {
      await tab.close();
    }
    await closeEditor(rig, page);
  },
);

test('Open… reads a .cm file into the editor, and a .cm file dropped on the page opens too', LIMIT, async () => {
  const page = await openEditor(rig);
  await page.locator('[data-testid="open-source"]').setInputFiles({
    name: 'scene.cm',
    mimeType: 'text/plain',
    buffer: Buffer.from(SOURCE),
  });
  await sourceBecomes(page, SOURCE);
  assert.equal(await page.locator('#preview-status').textContent(), 'Opened scene.cm');

  const dropped = SOURCE.replace('#102030', '#ff3399');
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'dropped.cm', { type: 'text/plain' }));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, dropped);
  await sourceBecomes(page, dropped);
  // a dropped source is not uploaded as an image
  assert.equal(await page.locator('#assets-box').isHidden(), true);
  await closeEditor(rig, page);
});

test('Save source writes the file picked in the save dialog, or downloads scene.cm without one', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, SOURCE);
  // the user's pick in the dialog stands in as one of the origin's private files
  await page.evaluate(() => {
    (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async (o: { suggestedName: string }) =>
      (await navigator.storage.getDirectory()).getFileHandle(o.suggestedName, { create: true });
  });
  await page.locator('[data-testid="save-source"]').click();
  await page.waitForFunction(() => document.getElementById('save-source')!.textContent === 'Saved', null, {
    timeout: WAIT_MS,
  });
  const saved = await page.evaluate(async () =>
    (await (await (await navigator.storage.getDirectory()).getFileHandle('scene.cm')).getFile()).text(),
  );
  assert.equal(saved, SOURCE);

  await page.evaluate(() => delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker);
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: WAIT_MS }),
    page.locator('[data-testid="save-source"]').click(),
  ]);
  assert.equal(download.suggestedFilename(), 'scene.cm');
  assert.equal(readFileSync((await download.path())!, 'utf8'), SOURCE);
  await closeEditor(rig, page);
});

test(
  'Copy puts the source on the clipboard; Clear empties the editor and undo brings the source back',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rig.base });
    await setSource(page, SOURCE);
    await page.locator('[data-testid="copy-source"]').click();
    await page.waitForFunction(() => document.getElementById('copy-source')!.textContent === 'Copied', null, {
      timeout: WAIT_MS,
    });
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), SOURCE);

    await page.locator('[data-testid="clear-source"]').click();
    assert.equal(await sourceOf(page), '');
    await page.keyboard.press('Control+z');
    await sourceBecomes(page, SOURCE);
    await closeEditor(rig, page);
  },
);
