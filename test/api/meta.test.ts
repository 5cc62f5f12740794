// /healthz, /openapi.json (and that openapi/openapi.json is current), /docs, /test's HTTP shape, /v1/check, 404s.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, FakeRenderer, post, repoRoot, type TestApp } from '../helpers/app.js';
import { buildOpenApi, openApiText } from '../../src/server/openapi.js';

let t: TestApp;
const fake = new FakeRenderer();
before(async () => {
  t = await startApp({ renderer: fake });
});
after(() => t.close());

test('GET /healthz: plain text "ok\\n"', async () => {
  const r = await t.app.inject({ url: '/healthz' });
  assert.equal(r.statusCode, 200);
  assert.equal(r.body, 'ok\n');
  assert.match(String(r.headers['content-type']), /^text\/plain/);
});

test('GET /openapi.json: OpenAPI 3.1, version 0.0.1, every route, every $ref resolves', async () => {
  const r = await t.app.inject({ url: '/openapi.json' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  const doc = r.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '0.0.1');
  assert.deepEqual(Object.keys(doc.paths).sort(), ['/docs', '/healthz', '/openapi.json', '/test', '/v1/assets', '/v1/check', '/v1/frame', '/v1/jobs/{id}', '/v1/outputs/{filename}', '/v1/render'].sort());
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
  assert.ok(refs.length > 10);
  for (const ref of refs) {
    assert.match(ref, /^#\/components\/schemas\//);
    assert.ok(doc.components.schemas[ref.split('/').pop()!], ref);
  }
  const rr = doc.components.schemas.RenderRequest;
  assert.deepEqual(rr.required, ['source']);
  assert.equal(rr.properties.source.maxLength, 65536);
  assert.deepEqual([rr.properties.params.properties.fps.minimum, rr.properties.params.properties.fps.maximum, rr.properties.params.properties.fps.type], [1, 60, 'integer']);
  assert.deepEqual(doc, buildOpenApi());
});

test('openapi/openapi.json is current (regenerate: npx tsx src/server/openapi.ts --write)', () => {
  assert.equal(readFileSync(join(repoRoot, 'openapi', 'openapi.json'), 'utf8'), openApiText());
});

test('GET /docs: the human-readable reference page', async () => {
  const r = await t.app.inject({ url: '/docs' });
  const page = r.statusCode === 302 ? await t.app.inject({ url: String(r.headers.location) }) : r;
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /text\/html/);
  assert.match(page.body, /swagger/i);
});

test('GET /test answers 200 image/png (HTTP shape; the real render is checked end to end)', async () => {
  const r = await t.app.inject({ url: '/test' });
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['content-type'], 'image/png');
  assert.ok(r.rawPayload.subarray(1, 4).equals(Buffer.from('PNG')));
  assert.equal(fake.calls.at(-1)!.kind, 'frame');
  assert.match(fake.calls.at(-1)!.source, /rect\(/);
});

test('POST /v1/check: the diagnostics envelope; the source rules of render requests', async () => {
  const ok = await post(t.app, '/v1/check', { source: 'runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  compose [rect(width: 10px, height: 10px, fill: #ffffff)]\n}\n' });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().ok, true);
  assert.deepEqual(ok.json().diagnostics, []);
  const bad = await post(t.app, '/v1/check', { source: 'runner "0.0.3";\nscene s() -> Frame { compose [fgg] }\n' });
  assert.equal(bad.statusCode, 200);
  const env = bad.json();
  assert.equal(env.ok, false);
  assert.equal(env.diagnostics[0].code, 'NAM003');
  for (const k of ['code', 'message', 'line', 'column']) assert.ok(k in env.diagnostics[0], k);
  assert.equal((await post(t.app, '/v1/check', {})).json().code, 'missing_source');
  assert.equal((await post(t.app, '/v1/check', { source: 'x'.repeat(65537) })).json().code, 'source_too_large');
  assert.equal((await post(t.app, '/v1/check', '[')).json().code, 'bad_json');
});

test('unknown routes and methods: 404 {"error":"not_found"}', async () => {
  for (const [method, url] of [['GET', '/'], ['GET', '/v1'], ['GET', '/v1/gif'], ['PUT', '/v1/render'], ['GET', '/v1/render'], ['GET', '/../../etc/passwd'], ['GET', '/dist/viewer/viewer.js'], ['GET', '/data/outputs']] as const) {
    const r = await t.app.inject({ method, url });
    assert.equal(r.statusCode, 404, `${method} ${url}`);
    assert.equal(r.body, '{"error":"not_found"}');
  }
});
