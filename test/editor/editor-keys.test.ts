// The editor against an instance with API_KEYS, in the real Chromium: a render says a key is needed (the service's
// 401 in a prompt), goes through once the key is given, and the key is kept in local storage: the next render
// after a reload asks nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openEditor, closeEditor, rigForFile, LIMIT } from './helpers.js';

const STILL = `runner "0.0.3";
use std.shapes.*;
scene s() -> Frame {
  let bg = rect(width: 640px, height: 360px, fill: #102030);
  compose [bg]
}
`;

const rig = rigForFile({ apiKeys: 'editor-key-1' });

test('a render asks for the key once, keeps it in local storage, and renders', LIMIT, async () => {
  const page = await openEditor(rig);
  const prompts: string[] = [];
  page.on('dialog', (d) => {
    prompts.push(d.message());
    void d.accept('editor-key-1');
  });
  const render = async () => {
    await page.evaluate((s) => window.cmEditor.setSource(s), STILL);
    await page.locator('#width').fill('64');
    await page.locator('#height').fill('36');
    await page.locator('#width').press('Control+Enter');
    await page.waitForFunction(
      () => /ready|failed/.test(document.getElementById('job-status')!.textContent ?? ''),
      null,
      { timeout: 60_000 },
    );
    return (await page.locator('#job-status').textContent()) ?? '';
  };
  assert.match(await render(), /ready/);
  assert.equal(prompts.length, 1);
  assert.match(prompts[0]!, /needs an API key.*an API key is needed: Authorization: Bearer <key>/s);
  // the key lives in this tab's session, never in local storage (which outlives the tab on the machine)
  assert.equal(await page.evaluate(() => sessionStorage.getItem('cmrender.apiKey')), 'editor-key-1');
  assert.equal(await page.evaluate(() => localStorage.getItem('cmrender.apiKey')), null);

  await page.reload();
  await page.waitForFunction(() => window.cmEditor !== undefined, null, { timeout: 20_000 });
  assert.match(await render(), /ready/);
  assert.equal(prompts.length, 1, 'no second prompt: the stored key went with the render');
  await closeEditor(rig, page);
});

test('a wrong key is refused and the render says why', LIMIT, async () => {
  const page = await openEditor(rig);
  page.on('dialog', (d) => void d.accept('not-a-key'));
  await page.evaluate((s) => window.cmEditor.setSource(s), STILL);
  await page.locator('#width').fill('64');
  await page.locator('#height').fill('36');
  await page.locator('#width').press('Control+Enter');
  await page.waitForFunction(() => /failed/.test(document.getElementById('job-status')!.textContent ?? ''), null, {
    timeout: 60_000,
  });
  assert.match((await page.locator('#job-status').textContent()) ?? '', /this API key is not known/);
  await closeEditor(rig, page);
});
