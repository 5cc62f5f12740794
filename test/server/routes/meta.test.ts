// /healthz, /openapi.json (and that openapi/openapi.json is current), /docs, /test's HTTP shape, /v1/check, 404s.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, FakeRenderer, repoRoot, type TestApp } from '../../helpers/app.js';
import { post } from '../../helpers/job-client.js';

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

test("GET /openapi.json: OpenAPI 3.1, the package's version, every route, every $ref resolves", async () => {
  const r = await t.app.inject({ url: '/openapi.json' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  const doc = r.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
  assert.deepEqual(
    Object.keys(doc.paths).sort(),
    [
      '/',
      '/docs',
      '/docs/language',
      '/healthz',
      '/llms-full.txt',
      '/llms.txt',
      '/metrics',
      '/openapi.json',
      '/readyz',
      '/test',
      '/v1/assets',
      '/v1/assets/{key}',
      '/v1/batches',
      '/v1/batches/{id}',
      '/v1/batches/{id}/archive',
      '/v1/batches/{id}/events',
      '/v1/check',
      '/v1/diagnostics',
      '/v1/diagnostics/{code}',
      '/v1/frame',
      '/v1/jobs/{id}',
      '/v1/jobs/{id}/events',
      '/v1/outputs/{filename}',
      '/v1/render',
      '/v1/gif',
      '/v1/mesh',
      '/v1/vectorize',
    ].sort(),
  );
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
  assert.ok(refs.length > 10);
  for (const ref of refs) {
    assert.match(ref, /^#\/components\/schemas\//);
    assert.ok(doc.components.schemas[ref.split('/').pop()!], ref);
  }
  // components keep the contract's names, one form each
  assert.deepEqual(Object.keys(doc.components.schemas).sort(), [
    'ArgProblem',
    'AssetsResponse',
    'Batch',
    'BatchCreated',
    'BatchRequest',
    'BatchRow',
    'BatchRowRequest',
    'CheckRequest',
    'CheckResponse',
    'Diagnostic',
    'DiagnosticExplanation',
    'DiagnosticList',
    'EnqueueResponse',
    'ErrorEnvelope',
    'FrameRequest',
    'GifRequest',
    'Job',
    'JobError',
    'JobPending',
    'JobReady',
    'MeshRequest',
    'RenderRequest',
    'SceneParam',
    'SceneSignature',
    'VectorizeRequest',
    'Webhook',
  ]);
  const rr = doc.components.schemas.RenderRequest;
  assert.deepEqual(rr.required, ['source']);
  assert.equal(rr.properties.source.maxLength, 65536);
  assert.deepEqual(
    [
      rr.properties.params.properties.fps.minimum,
      rr.properties.params.properties.fps.maximum,
      rr.properties.params.properties.fps.type,
    ],
    [1, 60, 'integer'],
  );
  assert.deepEqual(rr.properties.assets.examples, [{ '/img/earth.jpg': 'asset_0123456789abcdef0123456789abcdef' }]);
});

test('/openapi.json describes each operation: summary, request body, error codes per status, retry-after on 503', async () => {
  const doc = (await t.app.inject({ url: '/openapi.json' })).json();
  const ops = Object.values(doc.paths).flatMap((p) =>
    Object.values(p as Record<string, { operationId: string; summary: string }>),
  );
  assert.deepEqual(ops.map((o) => o.operationId).sort(), [
    'batchArchive',
    'batchEvents',
    'cancelBatch',
    'cancelJob',
    'check',
    'createBatch',
    'docs',
    'editor',
    'explainDiagnostic',
    'frame',
    'getAsset',
    'getBatch',
    'getJob',
    'getOutput',
    'gif',
    'healthz',
    'jobEvents',
    'languageReference',
    'listDiagnostics',
    'llmsFullTxt',
    'llmsTxt',
    'mesh',
    'metrics',
    'openapi',
    'readyz',
    'render',
    'smokeTest',
    'uploadAssets',
    'vectorize',
  ]);
  for (const o of ops) assert.ok(o.summary, o.operationId);
  const render = doc.paths['/v1/render'].post;
  assert.equal(render.requestBody.content['application/json'].schema.$ref, '#/components/schemas/RenderRequest');
  assert.equal(render.responses['202'].content['application/json'].schema.$ref, '#/components/schemas/EnqueueResponse');
  for (const code of [
    'bad_json',
    'missing_source',
    'source_too_large',
    'body_too_large',
    'invalid_params',
    'invalid_assets',
    'unknown_asset',
  ])
    assert.match(render.responses['400'].description, new RegExp(`\`${code}\``));
  for (const [path, codes] of [
    ['/v1/render', ['queue_full', 'storage_full', 'shutting_down', 'redis_unavailable']],
    ['/v1/frame', ['queue_full', 'storage_full', 'shutting_down', 'redis_unavailable']],
    ['/v1/gif', ['queue_full', 'storage_full', 'shutting_down', 'redis_unavailable']],
    ['/v1/mesh', ['queue_full', 'storage_full', 'shutting_down', 'redis_unavailable']],
    ['/v1/vectorize', ['queue_full', 'storage_full', 'shutting_down', 'redis_unavailable']],
    ['/v1/assets', ['too_many_uploads']],
  ] as const) {
    const refusal = doc.paths[path].post.responses['503'];
    assert.equal(refusal.content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope', path);
    assert.deepEqual(refusal.headers['retry-after'].schema, { type: 'integer', minimum: 1 }, path);
    for (const code of codes) assert.match(refusal.description, new RegExp(`\`${code}\``), path);
  }
  assert.ok(doc.paths['/v1/assets'].post.requestBody.content['multipart/form-data'], 'uploads are multipart');
  const job = doc.paths['/v1/jobs/{id}'].get;
  assert.deepEqual(
    job.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`),
    ['path:id'],
  );
  assert.deepEqual(Object.keys(job.responses).sort(), ['200', '404', '500', '503']);
  assert.match(job.responses['503'].description, /`redis_unavailable`/);
  assert.equal(job.responses['500'].content['application/json'].schema.$ref, '#/components/schemas/JobError');
  // the client additions: Location on 202, Retry-After on a pending job, Idempotency-Key, cancel, events
  assert.equal(render.responses['202'].headers.location.schema.type, 'string');
  assert.deepEqual(
    render.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`),
    ['header:idempotency-key', 'header:cache-control'],
  );
  assert.match(render.responses['422'].description, /`idempotency_mismatch`/);
  for (const code of ['bad_webhook', 'webhook_not_allowed'])
    assert.match(render.responses['400'].description, new RegExp(`\`${code}\``));
  assert.equal(job.responses['200'].headers['retry-after'].schema.type, 'integer');
  const cancel = doc.paths['/v1/jobs/{id}'].delete;
  assert.deepEqual(Object.keys(cancel.responses).sort(), ['200', '401', '404', '409']);
  assert.match(cancel.responses['409'].description, /`job_ended`/);
  const events = doc.paths['/v1/jobs/{id}/events'].get;
  assert.match(events.responses['200'].content['text/event-stream'].schema.examples[0], /^event: progress\n/);
  const output = doc.paths['/v1/outputs/{filename}'].get;
  assert.deepEqual(Object.keys(output.responses).sort(), ['200', '206', '302', '304', '404', '416', '503']);
  assert.deepEqual(
    Object.keys(output.responses['200'].content).sort(),
    [
      'image/gif',
      'image/jpeg',
      'image/png',
      'image/svg+xml',
      'image/webp',
      'model/gltf-binary',
      'video/mp4',
      'video/quicktime',
      'video/webm',
    ],
    'every kind of output (OUTPUT_MIME: the kinds, the video codecs and the still formats)',
  );
  assert.equal(output.responses['304'].content, undefined, 'a 304 has no body');
});

test('openapi/openapi.json is what the app serves (regenerate: npm run openapi)', async () => {
  const served = (await t.app.inject({ url: '/openapi.json' })).json();
  assert.equal(readFileSync(join(repoRoot, 'openapi', 'openapi.json'), 'utf8'), JSON.stringify(served, null, 2) + '\n');
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
  const ok = await post(t.app, '/v1/check', {
    source:
      'runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  compose [rect(width: 10px, height: 10px, fill: #ffffff)]\n}\n',
  });
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

test('unknown routes and methods: 404 {"error":"not_found","code":"not_found"}', async () => {
  for (const [method, url] of [
    ['PUT', '/'],
    ['GET', '/index.html'],
    ['GET', '/editor/nope.js'],
    ['GET', '/editor/..%2Fpackage.json'],
    ['GET', '/v1'],
    ['GET', '/v1/gif'],
    ['PUT', '/v1/render'],
    ['GET', '/v1/render'],
    ['GET', '/../../etc/passwd'],
    ['GET', '/dist/viewer/viewer.js'],
    ['GET', '/data/outputs'],
  ] as const) {
    const r = await t.app.inject({ method, url });
    assert.equal(r.statusCode, 404, `${method} ${url}`);
    assert.equal(r.body, '{"error":"not_found","code":"not_found"}');
  }
});

test('/openapi.json documents the GIF, mesh and vectorize operations: their params with limits, an example, their codes', async () => {
  const doc = (await t.app.inject({ url: '/openapi.json' })).json();
  const schemas = doc.components.schemas;
  const gif = schemas.GifRequest.properties.params.properties;
  assert.deepEqual(
    [gif.fps.minimum, gif.fps.maximum, gif.duration.maximum, gif.width.maximum, gif.height.maximum],
    [1, 30, 60, 1920, 1920],
  );
  assert.equal(schemas.MeshRequest.properties.source.maxLength, 65536);
  assert.deepEqual(Object.keys(schemas.MeshRequest.properties.params.properties).sort(), [
    'cache',
    'depth',
    'round',
    'size',
  ]);
  const vec = schemas.VectorizeRequest.properties;
  assert.equal(vec.image.maxLength, 12 * 1024 * 1024);
  assert.deepEqual(Object.keys(vec.params.properties).sort(), [
    'bridge',
    'cache',
    'maxDim',
    'simplify',
    'stitch',
    'strokeWidth',
    'threshold',
  ]);
  assert.deepEqual([vec.params.properties.threshold.minimum, vec.params.properties.threshold.maximum], [0, 1]);
  for (const name of ['GifRequest', 'MeshRequest', 'VectorizeRequest'])
    assert.ok(schemas[name].examples?.length, `${name} has an example`);
  assert.match(doc.paths['/v1/vectorize'].post.responses['400'].description, /`not_an_image`/);
  assert.match(doc.paths['/v1/vectorize'].post.responses['400'].description, /`image_too_large`/);
  assert.match(doc.paths['/v1/mesh'].post.description, /`bad_svg`/);
  assert.deepEqual(doc.components.schemas.JobReady.properties.mime.enum.sort(), [
    'image/gif',
    'image/jpeg',
    'image/png',
    'image/svg+xml',
    'image/webp',
    'model/gltf-binary',
    'video/mp4',
    'video/quicktime',
    'video/webm',
  ]);
});
