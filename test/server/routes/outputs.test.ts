// GET/HEAD /v1/outputs/{filename}: headers, ETag/304, Range/206/416, and 404s for anything that is not a known output
// (path traversal included). A fake renderer writes the files: these tests are about HTTP shape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedLine, startApp, FakeRenderer, gate, type TestApp } from '../../helpers/app.js';
import { post, runJob } from '../../helpers/job-client.js';

let t: TestApp;
const fake = new FakeRenderer();
let video: { url: string; job_id: string };
let frame: { url: string; job_id: string };
let bytes: Buffer;
before(async () => {
  t = await startApp({ renderer: fake });
  video = (await runJob(t.app, '/v1/render', { source: 'x' })).json();
  frame = (await runJob(t.app, '/v1/frame', { source: 'x' })).json();
  bytes = readFileSync(join(t.dataDir, 'outputs', `${video.job_id}.mp4`));
});
after(() => t.close());

const NOT_FOUND = '{"error":"not_found","code":"not_found"}';
/** The contract's fixed 404 body; a name the route looks up also says what is missing and how long outputs are kept. */
function assertNotFound(body: string, what: string): void {
  const { message, ...fixed } = JSON.parse(body) as { message?: string };
  assert.equal(JSON.stringify(fixed), NOT_FOUND, what);
  if (message !== undefined)
    assert.match(message, /^output .+ is not here: jobs and their outputs are kept 24 hours/, what);
}

test('200: the whole file with MIME type, content-length, etag, immutable 24 h cache and accept-ranges', async () => {
  const r = await t.app.inject({ url: video.url });
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['content-type'], 'video/mp4');
  assert.equal(r.headers['content-length'], String(bytes.length));
  assert.equal(r.headers['cache-control'], 'public, max-age=86400, immutable');
  assert.equal(r.headers['accept-ranges'], 'bytes');
  assert.match(String(r.headers.etag), /^"[0-9a-f]{64}"$/);
  assert.ok(r.rawPayload.equals(bytes));
  const f = await t.app.inject({ url: frame.url });
  assert.equal(f.statusCode, 200);
  assert.equal(f.headers['content-type'], 'image/png');
  assert.ok(f.rawPayload.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])));
  assert.notEqual(f.headers.etag, r.headers.etag);
});

test('HEAD: the same headers and no body', async () => {
  const r = await t.app.inject({ method: 'HEAD', url: video.url });
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['content-length'], String(bytes.length));
  assert.equal(r.headers['content-type'], 'video/mp4');
  assert.match(String(r.headers.etag), /^"[0-9a-f]{64}"$/);
  assert.equal(r.rawPayload.length, 0);
  const missing = await t.app.inject({ method: 'HEAD', url: '/v1/outputs/nope.mp4' });
  assert.equal(missing.statusCode, 404);
});

test('If-None-Match with the etag answers 304', async () => {
  const etag = String((await t.app.inject({ url: video.url })).headers.etag);
  const r = await t.app.inject({ url: video.url, headers: { 'if-none-match': etag } });
  assert.equal(r.statusCode, 304);
  assert.equal(r.rawPayload.length, 0);
  const other = await t.app.inject({ url: video.url, headers: { 'if-none-match': '"other"' } });
  assert.equal(other.statusCode, 200);
});

test('Range: 206 with content-range for first-last, open-ended and suffix ranges', async () => {
  const n = bytes.length;
  const cases: [string, number, number][] = [
    ['bytes=0-9', 0, 9],
    ['bytes=100-', 100, n - 1],
    ['bytes=-16', n - 16, n - 1],
    [`bytes=10-${n + 1000}`, 10, n - 1],
    [`bytes=${n - 1}-${n - 1}`, n - 1, n - 1],
  ];
  for (const [range, s, e] of cases) {
    const r = await t.app.inject({ url: video.url, headers: { range } });
    assert.equal(r.statusCode, 206, range);
    assert.equal(r.headers['content-range'], `bytes ${s}-${e}/${n}`, range);
    assert.equal(r.headers['content-length'], String(e - s + 1), range);
    assert.ok(r.rawPayload.equals(bytes.subarray(s, e + 1)), range);
    assert.equal(r.headers['content-type'], 'video/mp4');
  }
});

test('Range: unsatisfiable is 416 with bytes */size; malformed or multi-range headers get the whole file', async () => {
  for (const range of [`bytes=${bytes.length}-`, 'bytes=-0', `bytes=${bytes.length + 5}-${bytes.length + 9}`]) {
    const r = await t.app.inject({ url: video.url, headers: { range } });
    assert.equal(r.statusCode, 416, range);
    assert.equal(r.headers['content-range'], `bytes */${bytes.length}`);
    assert.deepEqual(r.json(), { error: 'range_not_satisfiable', code: 'range_not_satisfiable' });
  }
  for (const range of ['bytes=0-1,4-5', 'items=0-3', 'bytes=9-2', 'garbage']) {
    const r = await t.app.inject({ url: video.url, headers: { range } });
    assert.equal(r.statusCode, 200, range);
    assert.equal(r.rawPayload.length, bytes.length);
  }
});

test('unknown names, names that break the pattern and traversal attempts are 404 and leak nothing', async () => {
  // a file in the output store that no ready job owns, and one beside the store
  writeFileSync(join(t.dataDir, 'outputs', 'stray.png'), 'stray');
  writeFileSync(join(t.dataDir, 'secret.txt'), 'secret');
  mkdirSync(join(t.dataDir, 'outputs', 'sub'), { recursive: true });
  writeFileSync(join(t.dataDir, 'outputs', 'sub', 'x.png'), 'x');
  const names = [
    'nope.png',
    'stray.png',
    `${video.job_id}.png`,
    `${video.job_id}`,
    `${video.job_id}.mp4.tmp`,
    '.',
    '..',
    '...',
    '..%2Fsecret.txt',
    '..%2F..%2F..%2Fetc%2Fpasswd',
    '%2e%2e%2fsecret.txt',
    '%2e%2e',
    '..%5csecret.txt',
    'sub%2Fx.png',
    '%2Fetc%2Fpasswd',
    'a%00.png',
    'x y.png',
    '%252e%252e%252fsecret.txt',
  ];
  for (const name of names) {
    const r = await t.app.inject({ url: `/v1/outputs/${name}` });
    assert.equal(r.statusCode, 404, name);
    assertNotFound(r.body, name);
  }
  for (const url of [
    '/v1/outputs/../secret.txt',
    '/v1/outputs/../../package.json',
    '/v1/outputs/sub/x.png',
    '/v1/outputs/',
    '/v1/outputs',
  ]) {
    const r = await t.app.inject({ url });
    assert.equal(r.statusCode, 404, url);
    assertNotFound(r.body, url);
  }
});

test('a pending job has no output yet: its future filename is 404', async () => {
  const g = gate();
  fake.behaviour = () => g.promise;
  const id = (await post(t.app, '/v1/frame', { source: 'x' })).json().job_id;
  const r = await t.app.inject({ url: `/v1/outputs/${id}.png` });
  assert.equal(r.statusCode, 404);
  fake.behaviour = null;
  g.open();
  await embeddedLine(t.app).onIdle();
  assert.equal((await t.app.inject({ url: `/v1/outputs/${id}.png` })).statusCode, 200);
});
