// The editor's Format in the real Chromium: a badly laid-out source typed into the editor, Shift+Alt+F, and the
// editor's text is `cmrender fmt`'s (src/lang/format.ts, computed here) with the cursor by the same token; one undo
// takes it back; the Format button does the same; a source that does not parse is left as it is, with a note. And
// where the cursor goes (format-source.ts's mapPosition), at every place of a source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { formatSource } from '../../src/lang/format.js';
import { openEditor, closeEditor, rigForFile, LIMIT, WAIT_MS } from './helpers.js';
import { mapPosition } from '../../editor/src/format-source.js';

const rig = rigForFile();

const fmt = (s: string) => {
  const r = formatSource(s);
  assert.ok(r.ok, 'the source parses');
  return r.text;
};
const source = (page: Page) => page.evaluate(() => window.cmEditor.source);
const note = async (page: Page) => (await page.locator('#format-note').textContent()) ?? '';

/** An empty editor with the cursor in it. */
async function emptyEditor(page: Page): Promise<void> {
  await page.evaluate(() => window.cmEditor.setSource(''));
  await page.locator('.cm-content').click();
}

test(
  'Shift+Alt+F: the typed source becomes fmt of it, the cursor stays by its token, one undo takes it back',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await emptyEditor(page);
    // typed as a person would (the editor's own indentation and bracket closing take part), laid out badly
    const lines = [
      'runner "0.0.3";',
      'use std.shapes.*;',
      'scene s()->Frame{',
      'let bg=rect(width:640px,height:360px,fill:#102030);',
      'let fg   =   rect(width:120px,height:120px,fill:#ff3399);',
      'compose [bg,fg]',
    ];
    for (const l of lines) {
      await page.keyboard.type(l);
      await page.keyboard.press('Enter');
    }
    const typed = await source(page);
    assert.match(typed, /let fg {3}= {3}rect/, 'the text is as typed');
    const expected = fmt(typed);
    assert.notEqual(expected, typed, 'the typed text is not in the canonical layout');
    // the cursor just before `compose`
    await page.evaluate(() => {
      const v = window.cmEditor.view;
      v.dispatch({ selection: { anchor: v.state.doc.toString().indexOf('compose') } });
    });

    await page.keyboard.press('Shift+Alt+F');
    await page.waitForFunction((s) => window.cmEditor.source === s, expected, { timeout: WAIT_MS });
    const after = await page.evaluate(() => {
      const v = window.cmEditor.view;
      const at = v.state.selection.main.head;
      return v.state.doc.sliceString(at, at + 'compose'.length);
    });
    assert.equal(after, 'compose', 'the cursor is still before `compose`');
    assert.equal(await note(page), 'Formatted');

    // one undo step: back to the typed text
    await page.keyboard.press('Control+z');
    assert.equal(await source(page), typed);
    // formatting the formatted text changes nothing, and says so
    await page.keyboard.press('Shift+Alt+F');
    assert.equal(await source(page), expected);
    await page.keyboard.press('Shift+Alt+F');
    assert.equal(await source(page), expected);
    assert.equal(await note(page), 'Format: already formatted');
    await closeEditor(rig, page);
  },
);

test('the Format button formats too; a source that does not parse is left as it is, with a note', LIMIT, async () => {
  const page = await openEditor(rig);
  const messy =
    'runner "0.0.3";\nuse std.shapes.*;\n\n\n\nscene s() -> Frame {\ncompose [ rect(width:64px,height:36px) ]   \n}';
  await page.evaluate((s) => window.cmEditor.setSource(s), messy);
  await page.locator('#format-source').click();
  await page.waitForFunction((s) => window.cmEditor.source === s, fmt(messy), { timeout: WAIT_MS });

  const broken = 'runner "0.0.3";\nscene s( -> Frame {\n  compose [ ]\n}\n';
  assert.equal(formatSource(broken).ok, false);
  await page.evaluate((s) => window.cmEditor.setSource(s), broken);
  await page.locator('.cm-content').click();
  await page.keyboard.press('Shift+Alt+F');
  await page.waitForFunction(
    () => /does not parse/.test(document.getElementById('format-note')!.textContent ?? ''),
    null,
    { timeout: WAIT_MS },
  );
  assert.match(await note(page), /^Format: the source does not parse \(line 2\); nothing changed$/);
  assert.equal(await source(page), broken);
  await closeEditor(rig, page);
});

test("the cursor's place after a format: before the same character, at every place of a source", () => {
  const messy = 'runner "0.0.3";\nuse std.shapes.*;\nscene s()->Frame{\n\n\n  compose [ rect(width:64px) ]   \n}';
  const tidy = fmt(messy);
  for (let pos = 0; pos <= messy.length; pos++) {
    const at = mapPosition(messy, pos, tidy);
    assert.ok(at >= 0 && at <= tidy.length, `${pos}`);
    if (pos < messy.length && /\S/.test(messy[pos]!)) {
      const nth = [...messy.slice(0, pos)].filter((c) => /\S/.test(c)).length;
      assert.equal([...tidy.slice(0, at)].filter((c) => /\S/.test(c)).length, nth, `${pos}`);
      assert.equal(tidy[at], messy[pos], `${pos}`);
    }
  }
  // in the blank lines between `{` and `compose`: on the line of `compose`, before it
  assert.equal(tidy.slice(mapPosition(messy, messy.indexOf('compose') - 3, tidy)).startsWith('compose'), true);
});
