// Findings 2 and 5 of issue 10 through the real renderer: work that would explode in the page is refused before it
// is drawn, with its own code and a plain message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startApp, realRenderer, multipart, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { MAX_GLYPH_VERTICES, glyphVertexBound } from '../../../src/lang/index.js';
import { LIMITS } from '../../../src/contract/limits.js';
import { pngHeader } from '../../helpers/images.js';

let t: TestApp;
before(async () => {
  t = await startApp({ renderer: realRenderer() });
});
after(async () => {
  await t.close();
});

const glyphScene = (text: string) => `runner "0.0.3";
use std.shapes.*;
use std.mesh3d.*;
use std.text;
use std.scene3d.*;
scene words() -> Frame {
  let bg = rect(width: 640px, height: 360px, fill: #fdf0d5);
  compose [bg, render3d(extrude(text.glyph("${text}", size: 20px), depth: 4px))]
}
`;

test(
  'finding 2: a 62 KB text.glyph frame and one just past the glyph vertex bound end at once with EVL009, never "Invalid array length"',
  { timeout: 60_000 },
  async () => {
    for (const n of [62_000, Math.floor(MAX_GLYPH_VERTICES / glyphVertexBound(20, false)) + 1]) {
      const r = await post(t.app, '/v1/frame', { source: glyphScene('x'.repeat(n)) });
      assert.equal(r.statusCode, 202, r.body);
      const e = await waitJob(t.app, r.json().job_id, 30_000);
      assert.equal(e.json().status, 'error', e.body);
      assert.equal(e.json().code, 'EVL009', e.body);
      assert.doesNotMatch(e.body, /Invalid array length/);
    }
  },
);

test('finding 2: 256 glyphs (the old limit) still render', { timeout: 180_000 }, async () => {
  const r = await post(t.app, '/v1/frame', {
    source: glyphScene('ab'.repeat(128)),
    params: { width: 320, height: 180 },
  });
  const e = await waitJob(t.app, r.json().job_id, 170_000);
  assert.equal(e.json().status, 'ready', e.body);
});

test(
  'finding 5: an image that decodes to 20000x20000 is refused at upload (400 image_too_large), at the limit it is stored',
  { timeout: 30_000 },
  async () => {
    const side = LIMITS.image.side;
    const over = await t.app.inject({
      method: 'POST',
      url: '/v1/assets',
      ...multipart([{ name: 'f', filename: 'huge.png', data: pngHeader(20000, 20000) }]),
    });
    assert.equal(over.statusCode, 400, over.body);
    assert.equal(over.json().code, 'image_too_large');
    assert.match(over.json().error, /20000x20000/);
    const past = await t.app.inject({
      method: 'POST',
      url: '/v1/assets',
      ...multipart([
        { name: 'f', filename: 'p.png', data: pngHeader(side, Math.floor(LIMITS.image.pixels / side) + 1) },
      ]),
    });
    assert.equal(past.json().code, 'image_too_large');
    const edge = await t.app.inject({
      method: 'POST',
      url: '/v1/assets',
      ...multipart([{ name: 'f', filename: 'e.png', data: pngHeader(side, Math.floor(LIMITS.image.pixels / side)) }]),
    });
    assert.equal(edge.statusCode, 200, edge.body);
  },
);

test(
  'finding 5: a job whose stored image declares more than the pixel limit ends in ASS002 before the page decodes it',
  { timeout: 60_000 },
  async () => {
    // stored before the limit existed: put straight into the asset store
    const key = `asset_${'ab'.repeat(16)}`;
    await writeFile(join(t.dataDir, 'assets', key), pngHeader(20000, 20000));
    const source = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  compose [rect(width: 64px, height: 64px), image("/img/huge.png")]\n}\n`;
    const r = await post(t.app, '/v1/frame', { source, assets: { '/img/huge.png': key } });
    assert.equal(r.statusCode, 202, r.body);
    const e = await waitJob(t.app, r.json().job_id, 30_000);
    assert.equal(e.json().code, 'ASS002', e.body);
    assert.match(e.json().message, /too large to draw: 20000x20000/);
    assert.equal(e.json().diagnostics[0].line, 4);
  },
);
