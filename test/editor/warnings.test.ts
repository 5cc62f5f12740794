// The language's warnings in the editor, in the real Chromium: a misspelt argument (`rect(widht: 300px)`, LIB001)
// is underlined in the warning style, distinct from an error's underline, and listed as a warning; fixing it
// clears both. The render panel's fields show their whole placeholders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openEditor, closeEditor, rigForFile, LIMIT, WAIT_MS } from './helpers.js';

const rig = rigForFile();

/** Replaces the source (with an error in it there is no preview to wait for: the list is waited on instead). */
const setSource = (page: Page, source: string) => page.evaluate((s) => window.cmEditor.setSource(s), source);

const SOURCE = `runner "0.0.13";
scene s() -> Frame {
  let bg = rect(width: 640px, height: 360px, fill: #102030);
  compose [bg, rect(widht: 300px, height: 100px, fill: #ff3399), sqq]
}
`;

test('rect(widht: 300px) is underlined as a warning, unlike an error, and listed as one', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, SOURCE);
  const list = page.locator('[data-testid="diagnostics"]');
  const item = list.locator('[data-code="LIB001"]');
  await item.waitFor({ timeout: WAIT_MS });
  assert.equal(await item.getAttribute('class'), 'warning');
  assert.match((await item.textContent()) ?? '', /'rect' has no argument 'widht'; did you mean 'width'\?/);
  assert.equal(await list.locator('[data-code="NAM003"]').getAttribute('class'), 'error');
  const warning = page.locator('.cm-lintRange-warning');
  const error = page.locator('.cm-lintRange-error');
  assert.equal(await warning.count(), 1);
  assert.equal(await warning.first().textContent(), 'widht');
  assert.equal(await error.first().textContent(), 'sqq');
  // a warning's underline is drawn unlike an error's (its own colour)
  const underline = (sel: string) =>
    page
      .locator(sel)
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundImage);
  const [w, e] = [await underline('.cm-lintRange-warning'), await underline('.cm-lintRange-error')];
  assert.ok(w !== 'none' && e !== 'none', `${w} / ${e}`);
  assert.notEqual(w, e);
  // fixed: the warning goes, the error stays
  await setSource(page, SOURCE.replace('widht', 'width'));
  await list.locator('[data-code="LIB001"]').waitFor({ state: 'detached', timeout: WAIT_MS });
  assert.equal(await page.locator('.cm-lintRange-warning').count(), 0);
  assert.equal(await list.locator('[data-code="NAM003"]').count(), 1);
  await closeEditor(rig, page);
});

test('every field of the render panel shows its whole placeholder (Quality\'s "default" included)', LIMIT, async () => {
  const page = await openEditor(rig);
  const fields = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>('.render input[placeholder]')].map((i) => {
      const cs = getComputedStyle(i);
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const room = i.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      // a number field keeps room for its spin buttons (about 15 px in Chromium)
      return { id: i.id, text: ctx.measureText(i.placeholder).width, room: room - (i.type === 'number' ? 16 : 0) };
    }),
  );
  assert.ok(fields.some((f) => f.id === 'quality'));
  for (const f of fields) assert.ok(f.text <= f.room, `${f.id}: placeholder ${f.text.toFixed(1)} px in ${f.room} px`);
  await closeEditor(rig, page);
});
