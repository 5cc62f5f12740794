// Findings 2 and 5 of issue 10 through the real renderer: work that would explode in the page is refused before it
// is drawn, with its own code and a plain message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, realRenderer, post, waitJob, type TestApp } from '../../helpers/app.js';
import { MAX_GLYPHS } from '../../../src/lang/index.js';

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

test('finding 2: a 62 KB text.glyph frame and a 2,000-character one end at once with EVL009, never "Invalid array length"', { timeout: 60_000 }, async () => {
  for (const n of [62_000, 2000, MAX_GLYPHS + 1]) {
    const r = await post(t.app, '/v1/frame', { source: glyphScene('x'.repeat(n)) });
    assert.equal(r.statusCode, 202, r.body);
    const e = await waitJob(t.app, r.json().job_id, 30_000);
    assert.equal(e.json().status, 'error', e.body);
    assert.equal(e.json().code, 'EVL009', e.body);
    assert.doesNotMatch(e.body, /Invalid array length/);
  }
});

test(`finding 2: ${MAX_GLYPHS} glyphs (the limit) still render`, { timeout: 180_000 }, async () => {
  const r = await post(t.app, '/v1/frame', { source: glyphScene('ab'.repeat(MAX_GLYPHS / 2)), params: { width: 320, height: 180 } });
  const e = await waitJob(t.app, r.json().job_id, 170_000);
  assert.equal(e.json().status, 'ready', e.body);
});
