// The editor's Batch tab in the real Chromium against the service: pasted CSV rows are checked against the scene's
// parameters (a row that does not fit says why and the render is off), then rendered through the service as one
// batch: the list shows every row ready with its output, each PNG its row's colour, and the archive link downloads a
// ZIP of the rows and the manifest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import yauzl from 'yauzl';
import { openEditor, closeEditor, rigForFile, setSource, LIMIT } from './helpers.js';

const CARD = `runner "0.0.3";
use std.shapes.*;
scene card(fill: Color = #808080, n: Number = 1) -> Frame {
  compose [rect(width: 640px, height: 360px, fill: fill)]
}
`;

const rig = rigForFile();

function zipNames(buf: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const names: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        names.push(e.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(names));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

test(
  'the Batch tab checks pasted rows against the scene, renders them as a batch and links the archive',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await setSource(page, CARD);
    await page.locator('#width').fill('64');
    await page.locator('#height').fill('36');
    await page.locator('[data-testid=batch] summary').click();
    // a row that does not fit: named, and the render is off
    await page.locator('#batch-rows').fill('_name,fill,n\nred,#ff0000,2\nbad,not-a-colour,3\n');
    await page.waitForFunction(() => document.querySelectorAll('#batch-list li').length === 2);
    assert.match((await page.locator('#batch-list li[data-name=bad]').textContent()) ?? '', /fill/);
    assert.equal(await page.locator('#batch-render').isDisabled(), true);
    assert.match((await page.locator('#batch-status').textContent()) ?? '', /1 of 2 rows do not fit/);

    await page.locator('#batch-rows').fill('_name,fill,n\nred,#ff0000,2\ngreen,#00ff00,3\nblue,#0000ff,4\n');
    await page.waitForFunction(() => !(document.getElementById('batch-render') as HTMLButtonElement).disabled);
    await page.locator('#batch-render').click();
    await page.waitForFunction(() => !document.getElementById('batch-archive')!.hidden, null, { timeout: 60_000 });
    assert.match((await page.locator('#batch-status').textContent()) ?? '', /ready: 3 of 3 rows ready/);
    const colours: Record<string, number[]> = { red: [255, 0, 0], green: [0, 255, 0], blue: [0, 0, 255] };
    for (const name of Object.keys(colours)) {
      const href = await page.locator(`#batch-list li[data-name=${name}] a`).getAttribute('href');
      assert.ok(href, name);
      const png = PNG.sync.read(Buffer.from(await (await fetch(`${rig.base}${href}`)).arrayBuffer()));
      assert.deepEqual([...png.data.subarray(0, 3)], colours[name], name);
    }
    const archive = await page.locator('#batch-archive').getAttribute('href');
    const zip = await fetch(`${rig.base}${archive}`);
    assert.equal(zip.status, 200);
    assert.deepEqual((await zipNames(Buffer.from(await zip.arrayBuffer()))).sort(), [
      'blue.png',
      'green.png',
      'manifest.json',
      'red.png',
    ]);
    await closeEditor(rig, page);
  },
);
