// GET /v1/diagnostics and GET /v1/diagnostics/{code}: every code of the registry explained, one code by its path, 404
// `not_found` for an unknown one; the `docs` link of a /v1/check diagnostic leads to its explanation.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { post } from '../../helpers/job-client.js';
import { DIAGNOSTIC_DOCS } from '../../../src/lang/diagnostic-docs.js';

let t: TestApp;
before(async () => {
  t = await startApp({ renderer: new FakeRenderer() });
});
after(async () => {
  await t?.close();
});

test('GET /v1/diagnostics lists every code with title, explanation and snippets', async () => {
  const r = await t.app.inject({ url: '/v1/diagnostics' });
  assert.equal(r.statusCode, 200);
  const body = r.json() as { diagnostics: { code: string; title: string; explanation: string; docs: string }[] };
  assert.deepEqual(
    body.diagnostics.map((d) => d.code),
    DIAGNOSTIC_DOCS.map((d) => d.code),
  );
  const nam = body.diagnostics.find((d) => d.code === 'NAM003')!;
  assert.equal(nam.title, 'Unknown identifier');
  assert.equal(nam.docs, '/v1/diagnostics/NAM003');
  assert.ok(nam.explanation.length > 100);
});

test('GET /v1/diagnostics/{code} answers one code (any case), 404 not_found for an unknown one', async () => {
  const r = await t.app.inject({ url: '/v1/diagnostics/EVL004' });
  assert.equal(r.statusCode, 200);
  const d = r.json();
  assert.equal(d.code, 'EVL004');
  assert.equal(d.title, 'Missing required argument');
  assert.equal(d.stage, 'evaluate');
  assert.match(d.wrong, /twice\(\)/);
  assert.match(d.right, /twice\(50px\)/);
  assert.equal((await t.app.inject({ url: '/v1/diagnostics/evl004' })).json().code, 'EVL004');
  for (const unknown of ['XYZ999', 'EVL003', 'not-a-code', 'A'.repeat(200)]) {
    const n = await t.app.inject({ url: `/v1/diagnostics/${unknown}` });
    assert.equal(n.statusCode, 404, unknown);
    assert.deepEqual(n.json(), { error: 'not_found', code: 'not_found' });
  }
});

test("a /v1/check diagnostic's docs link leads to its explanation", async () => {
  const r = await post(t.app, '/v1/check', {
    source: 'runner "0.0.13";\nscene s() -> Frame {\n  compose [fgg]\n}\n',
  });
  assert.equal(r.statusCode, 200);
  const d = r.json().diagnostics[0];
  assert.equal(d.code, 'NAM003');
  assert.equal(d.docs, '/v1/diagnostics/NAM003');
  const e = await t.app.inject({ url: d.docs });
  assert.equal(e.statusCode, 200);
  assert.equal(e.json().code, 'NAM003');
});
