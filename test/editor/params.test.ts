// The editor's parameters panel (editor/src/params-panel.ts), in the real Chromium against the real service: a
// control per parameter made from the scene's signature, the colour control changing the live preview's pixel, the
// language's message under a control given a value that does not fit, window.cmEditor.setArgs/args, Render sending
// the panel's args, and a share link restoring them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  closeEditor,
  decodePng,
  openEditor,
  pixelAt,
  previewPixels,
  previewSettled,
  rigForFile,
  setSource,
  LIMIT,
  WAIT_MS,
} from './helpers.js';
import { until } from '../helpers/until.js';

const rig = rigForFile();

const CARD = `runner "0.0.3";
use std.shapes.*;
scene card(name: String = "Ana", accent: Color = #ff3399, big: Bool = false, size: Length = 640px, tags: List<String> = []) -> Frame {
  compose [rect(width: size, height: 360px, fill: accent)]
}
`;

async function centre(page: Page): Promise<number[]> {
  const px = await previewPixels(page);
  return pixelAt(px, px.width / 2, px.height / 2).slice(0, 3);
}

/** Runs `act` and waits for the preview it causes to be drawn. */
async function redrawn(page: Page, act: () => Promise<unknown>): Promise<void> {
  const before = await page.evaluate(() => window.cmEditor.previews);
  await act();
  await previewSettled(page, before);
}

test('a control per parameter by type, prefilled with the defaults, each carrying data-param', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, CARD);
  const controls = await page.$$eval('#params [data-param]', (els) =>
    els.map((e) => [
      e.getAttribute('data-param'),
      e.tagName.toLowerCase(),
      (e as HTMLInputElement).type ?? '',
      (e as HTMLInputElement).value,
    ]),
  );
  assert.deepEqual(controls, [
    ['name', 'input', 'text', 'Ana'],
    ['accent', 'input', 'color', '#ff3399'],
    ['accent.literal', 'input', 'text', '#ff3399'],
    ['big', 'input', 'checkbox', 'on'],
    ['size', 'input', 'number', '640'],
    ['size.unit', 'select', 'select-one', 'px'],
    ['tags', 'textarea', 'textarea', '[]'],
  ]);
  assert.deepEqual(await page.evaluate(() => window.cmEditor.args()), {});
  await closeEditor(rig, page);
});

test(
  "the colour control changes the live preview's pixel at once; setArgs and args() are the hooks",
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await setSource(page, CARD);
    assert.deepEqual(await centre(page), [0xff, 0x33, 0x99]);
    await redrawn(page, () => page.locator('[data-param="accent"]').fill('#00ff00'));
    assert.deepEqual(await centre(page), [0, 255, 0]);
    assert.equal(await page.inputValue('[data-param="accent.literal"]'), '#00ff00');
    assert.deepEqual(await page.evaluate(() => window.cmEditor.args()), { accent: '#00ff00' });
    await redrawn(page, () => page.evaluate(() => window.cmEditor.setArgs({ accent: '#0000ff' })));
    assert.deepEqual(await centre(page), [0, 0, 255]);
    assert.equal(await page.inputValue('[data-param="accent"]'), '#0000ff');
    await closeEditor(rig, page);
  },
);

test("the in-browser export draws with the panel's args", LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, CARD);
  await redrawn(page, () => page.evaluate(() => window.cmEditor.setArgs({ accent: '#00ff00' })));
  const png = await page.evaluate(async () => {
    const r = await window.cmEditor.export({ format: 'png', width: 64 });
    let s = '';
    for (const b of r.bytes) s += String.fromCharCode(b);
    return btoa(s);
  });
  const px = decodePng(Buffer.from(png, 'base64'));
  assert.deepEqual(pixelAt(px, px.width / 2, px.height / 2).slice(0, 3), [0, 255, 0]);
  await closeEditor(rig, page);
});

test("a value that does not fit shows the service's message under its control", LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, CARD);
  await page.locator('[data-param="accent.literal"]').fill('red');
  await page.waitForFunction(() => document.querySelector('[data-problem="accent"]')?.textContent !== '', null, {
    timeout: WAIT_MS,
  });
  const note = await page.textContent('[data-problem="accent"]');
  // the same sentence the service answers in its 400 invalid_args
  const r = await rig.t.app.inject({
    method: 'POST',
    url: '/v1/frame',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ source: CARD, args: { accent: 'red' } }),
  });
  assert.equal(r.statusCode, 400);
  assert.equal(note, r.json().problems[0].message);
  await closeEditor(rig, page);
});

test("Render sends the panel's args; a share link carries them and restores them", LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, CARD);
  await redrawn(page, () => page.locator('[data-param="accent"]').fill('#00ff00'));
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.url().endsWith('/v1/frame') && r.method() === 'POST', { timeout: WAIT_MS }),
    page.click('#render-png'),
  ]);
  assert.deepEqual(request.postDataJSON().args, { accent: '#00ff00' });
  await page.click('#share');
  // the link is made asynchronously (deflate), then put in the address bar
  await page.waitForFunction(() => location.hash.startsWith('#s='), null, { timeout: WAIT_MS });
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /^#s=[\w-]+&a=[\w-]+$/);
  await closeEditor(rig, page);
  const again = await openEditor(rig, hash);
  await again.waitForFunction(
    () => window.cmEditor.args().accent === '#00ff00' && window.cmEditor.previews > 0 && !window.cmEditor.drawing,
    null,
    { timeout: WAIT_MS },
  );
  // the shared args' redraw may follow the first one: wait for the pixel itself
  let seen = '';
  await until(
    () => `the shared page's centre to turn green (last seen ${seen})`,
    async () => (seen = (await centre(again)).join()) === '0,255,0',
    WAIT_MS,
  );
  assert.equal(await again.inputValue('[data-param="accent.literal"]'), '#00ff00');
  await closeEditor(rig, again);
});
