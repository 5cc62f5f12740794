// Completion and hover in the real Chromium, both from the language's stdlib table (src/lang/stdlib-docs.ts):
// `std.shapes.` lists `rect` with its signature and picking it writes the plain name; every entry the editor offers
// in any context names something the table defines (a function, method, symbol, module or name root) with the
// table's own signature; hovering a library name shows its signature and help.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openEditor, closeEditor, setSource, startRig, WAIT_MS, type EditorRig } from './helpers.js';
import { STDLIB, STD_MODULES, appliesTo, memberName, signature, stdEntry } from '../../src/lang/stdlib-docs.js';

const LIMIT = { timeout: 240_000 };
const SOURCE = `runner "0.0.13";
scene s() -> Frame {
  let ball = sphere(r: 80px).material(fill: #ff0000);
  let bg = rect(width: 640px, height: 360px, fill: #102030);
  compose [bg, render3d(ball, lights: [ambient(0.5)])]
}
`;

interface Offered {
  label: string;
  type: string;
  detail: string;
}

let rig: EditorRig;
before(async () => {
  rig = await startRig();
}, LIMIT);
after(() => rig?.close(), LIMIT);

/** Puts the cursor at the end of line `n` (1-based) on a fresh line below it and focuses the editor. */
async function newLineAfter(page: Page, n: number): Promise<void> {
  await page.evaluate((line) => {
    const v = window.cmEditor.view;
    const at = v.state.doc.line(line).to;
    v.dispatch({ changes: { from: at, insert: '\n  ' }, selection: { anchor: at + 3 } });
    v.focus();
  }, n);
}

/**
 * Writes `text` at the cursor (no completion opens for a change that is not typing), then asks for completion with
 * Ctrl+Space, so the list that opens is this context's, and reads every option of it.
 */
async function offered(page: Page, text: string): Promise<Offered[]> {
  await page.evaluate((t) => {
    const v = window.cmEditor.view;
    const at = v.state.selection.main.head;
    v.dispatch({ changes: { from: at, insert: t }, selection: { anchor: at + t.length } });
  }, text);
  await page.keyboard.press('Control+Space');
  const list = page.locator('.cm-tooltip-autocomplete');
  await list.waitFor({ timeout: WAIT_MS });
  return list.locator('li').evaluateAll((lis) =>
    lis.map((li) => ({
      label: li.querySelector('.cm-completionLabel')?.textContent ?? '',
      type: [...(li.querySelector('.cm-completionIcon')?.classList ?? [])]
        .find((c) => c.startsWith('cm-completionIcon-'))!
        .slice('cm-completionIcon-'.length),
      detail: li.querySelector('.cm-completionDetail')?.textContent ?? '',
    })),
  );
}

/** Closes the list and empties the line, ready for the next context. */
async function dismiss(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await page.locator('.cm-tooltip-autocomplete').waitFor({ state: 'detached', timeout: WAIT_MS });
  await page.evaluate(() => {
    const v = window.cmEditor.view;
    const line = v.state.doc.lineAt(v.state.selection.main.head);
    v.dispatch({ changes: { from: line.from, to: line.to, insert: '  ' }, selection: { anchor: line.from + 2 } });
  });
}

test(
  'after std.shapes. the list has rect with its signature, and picking it writes the plain name',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await setSource(page, SOURCE);
    await newLineAfter(page, 4);
    const options = await offered(page, 'let r = std.shapes.');
    const rect = options.find((o) => o.label === 'rect');
    assert.ok(rect, JSON.stringify(options.map((o) => o.label)));
    assert.equal(rect.detail, 'rect(width?: Length, height?: Length, fill?: Color) -> Layer');
    assert.equal(rect.type, 'function');
    // only std.shapes: no method, no other module's name, no document word
    assert.deepEqual(
      options.map((o) => o.label).sort(),
      STDLIB.filter((e) => e.module === 'std.shapes' && e.kind !== 'method')
        .map(memberName)
        .sort(),
    );
    // a qualified name is inert in the language (stdlib.md §6.11): picking `rect` leaves `rect`, not `std.shapes.rect`
    await page.keyboard.type('rec');
    await page
      .locator('.cm-tooltip-autocomplete li[aria-selected] .cm-completionLabel', { hasText: /^rect$/ })
      .waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Enter');
    const line5 = await page.evaluate(() => window.cmEditor.view.state.doc.line(5).text);
    assert.equal(line5, '  let r = rect');
    await closeEditor(rig, page);
  },
);

test(
  'every completion entry, in every context, names what the stdlib table defines, with its signature',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await setSource(page, SOURCE);
    await newLineAfter(page, 4);
    const seen: Offered[] = [];
    const contexts = [
      'std.',
      ...STD_MODULES.map((m) => `${m}.`),
      'text.',
      'easing.',
      'ball.',
      'sphere(r: 1px).',
      '', // an empty word: every global
    ];
    const byContext = new Map<string, Offered[]>();
    for (const typed of contexts) {
      const got = await offered(page, typed);
      byContext.set(typed, got);
      seen.push(...got);
      await dismiss(page);
    }
    const roots = new Set(STDLIB.filter((e) => e.name.includes('.')).map((e) => e.name.split('.')[0]!));
    const moduleSegments = new Set(STD_MODULES.map((m) => m.slice(4)));
    let library = 0;
    for (const o of seen) {
      if (o.type === 'keyword' || o.type === 'text') continue; // language keywords and the document's own words
      if (o.type === 'namespace') {
        assert.ok(
          o.label === 'std' || roots.has(o.label) || moduleSegments.has(o.label),
          `${o.label} is not a module or name root of the table`,
        );
        continue;
      }
      library++;
      const entry = STDLIB.find((e) => memberName(e) === o.label && signature(e) === o.detail);
      assert.ok(entry, `offered ${o.type} ${o.label} "${o.detail}" is not in the stdlib table`);
      assert.ok(['function', 'method', 'constant'].includes(o.type), o.type);
    }
    assert.ok(library > 60, `${library} library entries offered`);
    // members after a value are the methods that apply to its type (`ball` is a let of a sphere: a Solid's); after
    // `easing.` the easings; the global list has every plain name
    assert.deepEqual(
      byContext
        .get('ball.')!
        .map((o) => o.label)
        .sort(),
      STDLIB.filter((e) => appliesTo(e, 'Solid'))
        .map((e) => e.name)
        .sort(),
    );
    assert.equal(byContext.get('easing.')!.find((o) => o.label === 'out_cubic')?.type, 'constant');
    const globals = new Set(byContext.get('')!.map((o) => o.label));
    for (const e of STDLIB) if (e.kind !== 'method' && !e.name.includes('.')) assert.ok(globals.has(e.name), e.name);
    await closeEditor(rig, page);
  },
);

test(
  "after rect(width: 10px). only a layer's methods, with signatures: rotate, not as_texture; after image(...). an image's",
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await setSource(page, SOURCE);
    await newLineAfter(page, 4);
    const labels = (o: Offered[]) => o.map((x) => x.label).sort();
    const layer = await offered(page, 'let r = rect(width: 10px).');
    assert.ok(labels(layer).includes('rotate'), JSON.stringify(labels(layer)));
    assert.ok(!labels(layer).includes('as_texture') && !labels(layer).includes('fit'), JSON.stringify(labels(layer)));
    assert.equal(layer.find((o) => o.label === 'rotate')!.detail, signature(stdEntry('rotate')!));
    assert.deepEqual(
      labels(layer),
      STDLIB.filter((e) => appliesTo(e, 'Layer'))
        .map((e) => e.name)
        .sort(),
    );
    await dismiss(page);
    const chained = await offered(page, 'let r = rect(width: 10px).rotate(z: 1deg).');
    assert.deepEqual(labels(chained), labels(layer));
    await dismiss(page);
    const image = await offered(page, 'let i = image("/img/earth_4k.jpg").');
    assert.deepEqual(labels(image), ['as_texture', 'fit']);
    await dismiss(page);
    // a value whose type the text does not say: every method, as before
    const unknown = await offered(page, 'let u = foo(1).');
    assert.deepEqual(
      labels(unknown),
      STDLIB.filter((e) => e.kind === 'method')
        .map((e) => e.name)
        .sort(),
    );
    await closeEditor(rig, page);
  },
);

test('hovering a library name shows its signature and its help', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, SOURCE);
  const hover = async (line: number, word: string): Promise<string> => {
    const box = await page.evaluate(
      ([n, w]) => {
        const v = window.cmEditor.view;
        const l = v.state.doc.line(n as number);
        const c = v.coordsAtPos(l.from + l.text.indexOf(w as string) + 1)!;
        return { x: c.left + 2, y: (c.top + c.bottom) / 2 };
      },
      [line, word],
    );
    await page.mouse.move(0, 0);
    await page.mouse.move(box.x, box.y);
    const tip = page.locator('[data-testid="stdlib-hover"]');
    await tip.waitFor({ timeout: WAIT_MS });
    return (await tip.textContent()) ?? '';
  };
  const sphere = await hover(3, 'sphere');
  assert.ok(sphere.startsWith(signature(stdEntry('sphere')!)), sphere);
  assert.ok(sphere.includes(stdEntry('sphere')!.help), sphere);
  const material = await hover(3, 'material');
  assert.ok(material.startsWith('Solid.material(fill?: Color | Image'), material);
  await closeEditor(rig, page);
});
