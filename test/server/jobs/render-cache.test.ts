// The render cache (src/server/jobs/render-cache.ts) in the embedded service, on file: and on an S3-compatible
// bucket (s3rver on a loopback port): a second identical POST is ready within 100 ms of service time
// (completed_at - created_at) with the same bytes under its own filename and `cached: true`; a changed param, asset
// content or runner pin misses; the same image uploaded twice hits (assets count by content); Cache-Control:
// no-cache and params.cache false render afresh (and fill the cache); an entry is served until its output's 24 hours are up, not a
// millisecond after.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { multipart, ownExampleImage, realRenderer, startApp, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { TestS3 } from '../../helpers/s3.js';
import { encodePng } from '../../../src/render/png.js';

let s3: TestS3;
let onFile: TestApp;
let onBucket: TestApp;
const renderer = realRenderer();
/** the services' clock: real time unless a test holds it still */
let frozen: number | undefined;
const now = () => frozen ?? Date.now();

before(async () => {
  s3 = await TestS3.start();
  onFile = await startApp({ renderer, ownsRenderer: false, now, config: { renderCache: true } });
  onBucket = await startApp({
    renderer,
    ownsRenderer: false,
    now,
    config: { ...s3.useInProcess('cache'), renderCache: true },
  });
});
after(async () => {
  await onFile?.close();
  await onBucket?.close();
  await renderer.close();
  await s3?.close();
});

const DAY = 24 * 60 * 60 * 1000;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const scene = (pin: string, fill = '#ff3399') =>
  `runner "${pin}";\nuse std.shapes.*;\nscene s() -> Frame {\n  rect(width: 600px, height: 400px, fill: ${fill})\n}\n`;
const PICTURE = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  let bg = image("/img/a.png").fit(cover);\n  compose [bg]\n}\n`;

/** POSTs a job and waits for it: the ready view and the output's bytes. */
async function frame(t: TestApp, body: unknown, headers: Record<string, string> = {}) {
  const r = await t.app.inject({
    method: 'POST',
    url: '/v1/frame',
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
  assert.equal(r.statusCode, 202, r.body);
  const job = (await waitJob(t.app, r.json().job_id)).json();
  assert.equal(job.status, 'ready', JSON.stringify(job));
  const out = await t.app.inject({ url: job.url });
  assert.equal(out.statusCode, 200);
  return { job, bytes: out.rawPayload, ms: job.completed_at - job.created_at };
}

async function upload(t: TestApp, png: Buffer): Promise<string> {
  const r = await t.app.inject({
    method: 'POST',
    url: '/v1/assets',
    ...multipart([{ name: 'f', filename: 'a.png', type: 'image/png', data: png }]),
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().assets['a.png'];
}

for (const where of ['file:', 's3'] as const) {
  const app = () => (where === 'file:' ? onFile : onBucket);

  test(`${where}: an identical POST is ready from the cache at its creation, without a render, with the same bytes under its own name`, async (t) => {
    const body = { source: scene('0.0.3', '#123456'), params: { width: 160 } };
    const first = await frame(app(), body);
    assert.equal(first.job.cached, undefined, 'the first job renders');
    const second = await frame(app(), { params: { width: 160 }, source: body.source });
    assert.equal(second.job.cached, true);
    // ready in the POST itself: the record was never pending, never started and drew nothing (its time is the copy's,
    // which a loaded machine stretches, so it is shown, not bounded)
    const rec = await app().app.jobs.get(second.job.job_id);
    assert.equal(rec?.started_at, undefined, 'never started');
    assert.deepEqual(Object.keys(rec?.timings ?? {}).sort(), ['queue_wait_ms', 'total_ms'], 'no render stage');
    assert.equal(rec?.timings?.queue_wait_ms, 0);
    t.diagnostic(`${where}: rendered in ${first.ms} ms, cached repeat ready in ${second.ms} ms`);
    assert.notEqual(second.job.url, first.job.url, 'its own filename');
    assert.equal(sha(second.bytes), sha(first.bytes));
    // a cached job's output is a job output like any: Range and ETag hold
    const etag = (await app().app.inject({ url: second.job.url })).headers.etag;
    assert.equal(etag, `"${sha(first.bytes)}"`);
    // the entry stays: a third is answered too
    assert.equal((await frame(app(), body)).job.cached, true);
  });

  test(`${where}: a changed param, runner pin or asset content misses; the same image uploaded twice hits`, async () => {
    const body = { source: scene('0.0.3', '#654321'), params: { width: 160 } };
    await frame(app(), body);
    assert.equal((await frame(app(), { ...body, params: { width: 161 } })).job.cached, undefined, 'param');
    assert.equal((await frame(app(), { ...body, source: scene('0.0.5', '#654321') })).job.cached, undefined, 'pin');
    const sunset = ownExampleImage('sunset.png');
    const a = await frame(app(), {
      source: PICTURE,
      params: { width: 160 },
      assets: { '/img/a.png': await upload(app(), sunset) },
    });
    assert.equal(a.job.cached, undefined);
    const again = await frame(app(), {
      source: PICTURE,
      params: { width: 160 },
      assets: { '/img/a.png': await upload(app(), sunset) },
    });
    assert.equal(again.job.cached, true, 'the same bytes under another key');
    assert.equal(sha(again.bytes), sha(a.bytes));
    const other = encodePng(new Uint8Array(8 * 8 * 4).fill(200), 8, 8);
    const changed = await frame(app(), {
      source: PICTURE,
      params: { width: 160 },
      assets: { '/img/a.png': await upload(app(), other) },
    });
    assert.equal(changed.job.cached, undefined, 'asset content');
    assert.notEqual(sha(changed.bytes), sha(a.bytes));
  });
}

test('Cache-Control: no-cache or params.cache false render afresh; params.cache must be a boolean', async () => {
  const body = { source: scene('0.0.3', '#0000ff'), params: { width: 160 } };
  await frame(onFile, body);
  assert.equal((await frame(onFile, body, { 'cache-control': 'no-cache' })).job.cached, undefined);
  assert.equal((await frame(onFile, body, { 'cache-control': 'max-age=0, no-store' })).job.cached, undefined);
  assert.equal((await frame(onFile, { ...body, params: { width: 160, cache: false } })).job.cached, undefined);
  assert.equal((await frame(onFile, { ...body, params: { width: 160, cache: true } })).job.cached, true);
  assert.equal((await frame(onFile, body, { 'cache-control': 'max-age=60' })).job.cached, true);
  const bad = await post(onFile.app, '/v1/frame', { ...body, params: { width: 160, cache: 'no' } });
  assert.equal(bad.statusCode, 400);
  // a fresh render still fills the cache for the jobs after it
  const fresh = { source: scene('0.0.3', '#0000fe'), params: { width: 160 } };
  assert.equal((await frame(onFile, fresh, { 'cache-control': 'no-cache' })).job.cached, undefined);
  assert.equal((await frame(onFile, fresh)).job.cached, true);
});

test('an entry serves until its output is 24 hours old, not a millisecond longer', async () => {
  const body = { source: scene('0.0.3', '#00ff00'), params: { width: 160 } };
  const first = await frame(onFile, body);
  const written = (await onFile.app.inject({ url: `/v1/jobs/${first.job.job_id}` })).json().completed_at as number;
  try {
    // a copy is never an entry itself: the first job's output, and its age, is what each lookup finds
    frozen = written + DAY - 1;
    const last = await frame(onFile, body);
    assert.equal(last.job.cached, true, '1 ms before the 24 hours are up');
    frozen = written + DAY;
    const after = await frame(onFile, body);
    assert.equal(after.job.cached, undefined, 'at 24 hours the entry is past');
  } finally {
    frozen = undefined;
  }
});

test('on the bucket the entries are objects of the bucket (cache/), so every process sharing it shares the cache', async () => {
  const c = new S3Client({ forcePathStyle: true });
  const r = await c.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'cache/cache/' }));
  c.destroy();
  assert.ok((r.Contents ?? []).length >= 1);
});

test('RENDER_CACHE=off: an identical repeat renders again (no cached copy), with the same bytes', async () => {
  const off = await startApp({ renderer, ownsRenderer: false, now, config: { renderCache: false } });
  try {
    const body = { source: scene('0.0.3', '#33aa77'), params: { width: 96, height: 64 } };
    const first = await frame(off, body);
    const again = await frame(off, body);
    assert.equal(again.job.cached, undefined, 'rendered, not answered from the cache');
    assert.notEqual(again.job.url, first.job.url);
    assert.equal(sha(again.bytes), sha(first.bytes));
  } finally {
    await off.close();
  }
});
