// A source with library warnings (LIB*, ANI001) still renders, and says so: POST /v1/check answers ok with the
// warnings, and a ready job's view carries them as `warnings` beside its `url`, each with its docs link; a clean
// source's view has no `warnings`. The real renderer: the warnings come from admission's estimate of the job.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, realRenderer, type TestApp } from '../../helpers/app.js';
import { post, runJob } from '../../helpers/job-client.js';

let t: TestApp;
before(async () => {
  t = await startApp({ renderer: realRenderer(), ownsRenderer: true });
});
after(() => t.close());

const scene = (layer: string) =>
  `runner "0.0.13";\nscene main() -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: #102030), ${layer}]\n}\n`;
const WARNED = scene('rect(widht: 300px, height: 100px), circle(radius: 5deg)');

test('POST /v1/check: ok, with each warning, its severity and its docs link', async () => {
  const r = await post(t.app, '/v1/check', { source: WARNED });
  assert.equal(r.statusCode, 200);
  const body = r.json();
  assert.equal(body.ok, true);
  assert.deepEqual(
    body.diagnostics.map((d: { severity: string; code: string; docs: string }) => [d.severity, d.code, d.docs]),
    [
      ['warning', 'LIB001', '/v1/diagnostics/LIB001'],
      ['warning', 'LIB004', '/v1/diagnostics/LIB004'],
    ],
  );
  const doc = await t.app.inject({ url: '/v1/diagnostics/LIB001' });
  assert.equal(doc.statusCode, 200);
  assert.equal(doc.json().severity, 'warning');
});

test("a ready frame job's view lists the source's warnings beside its url; a clean source's has none", async () => {
  const r = await runJob(t.app, '/v1/frame', { source: WARNED, params: { width: 320, height: 180 } });
  const v = r.json();
  assert.equal(v.status, 'ready', r.body);
  assert.match(v.url, /^\/v1\/outputs\//);
  assert.deepEqual(
    v.warnings.map((d: { code: string; line: number; column: number; docs: string }) => [d.code, d.line, d.docs]),
    [
      ['LIB001', 3, '/v1/diagnostics/LIB001'],
      ['LIB004', 3, '/v1/diagnostics/LIB004'],
    ],
  );
  assert.match(v.warnings[0].message, /did you mean 'width'/);
  const clean = await runJob(t.app, '/v1/frame', {
    source: scene('rect(width: 300px, height: 100px)'),
    params: { width: 320, height: 180 },
  });
  assert.equal(clean.json().status, 'ready');
  assert.equal('warnings' in clean.json(), false);
});
