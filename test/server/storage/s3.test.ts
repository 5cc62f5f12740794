// STORAGE_URL=s3://…: the embedded service with its outputs and assets in a real S3-compatible server (s3rver on a
// loopback port, test/helpers/s3.ts) beside the same service on file:, both drawing with one Chromium. Frames, an
// uploaded asset, a GIF and a mesh give the same bytes on both; the objects are in the bucket and nothing is left in
// DATA_DIR; downloads keep Range and ETag; the bucket going away ends jobs in `storage_unavailable` and refuses
// uploads with 503, and once it is back the same POST works without a restart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { fullRenderer, multipart, ownExample, ownExampleImage, startApp, type TestApp } from '../../helpers/app.js';
import { post, runJob, waitJob } from '../../helpers/job-client.js';
import { TestS3 } from '../../helpers/s3.js';
import { MOVING } from '../../helpers/video.js';

let s3: TestS3;
let onBucket: TestApp;
let onFile: TestApp;
const renderer = fullRenderer();

before(async () => {
  s3 = await TestS3.start();
  const storage = s3.useInProcess('embedded');
  onBucket = await startApp({ renderer, ownsRenderer: false, config: storage });
  onFile = await startApp({ renderer, ownsRenderer: false });
});
after(async () => {
  await onBucket?.close();
  await onFile?.close();
  await renderer.close();
  await s3?.close();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every key of the bucket under a prefix, through the SDK against the server itself. */
async function bucketKeys(prefix: string): Promise<string[]> {
  const c = new S3Client({ forcePathStyle: true });
  const r = await c.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  c.destroy();
  return (r.Contents ?? []).map((o) => o.Key!);
}

/** Runs one job on an app; the ready view and the output's bytes. */
async function render(t: TestApp, url: string, body: unknown): Promise<{ job: any; bytes: Buffer }> {
  const r = await runJob(t.app, url, body);
  const job = r.json();
  assert.equal(job.status, 'ready', r.body);
  const out = await t.app.inject({ url: job.url });
  assert.equal(out.statusCode, 200);
  return { job, bytes: out.rawPayload };
}

/** The same job on the bucket and on file: must give the same bytes. */
async function sameOnBoth(url: string, body: unknown): Promise<{ job: any; bytes: Buffer }> {
  const a = await render(onBucket, url, body);
  const b = await render(onFile, url, body);
  assert.equal(a.bytes.length, b.bytes.length);
  assert.equal(sha(a.bytes), sha(b.bytes), `${url}: the bucket's bytes differ from file:'s`);
  assert.ok(
    (await bucketKeys('embedded/outputs/')).includes(`embedded/outputs/${a.job.url.split('/').pop()}`),
    'the output is an object of the bucket',
  );
  return a;
}

const FRAME = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  rect(width: 600px, height: 400px, fill: #ff3399)\n}\n`;
const PICTURE = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  let bg = image("/img/sunset.png").fit(cover);\n  compose [bg]\n}\n`;
const MARK_SVG = /<svg[\s>][\s\S]*?<\/svg>/.exec(ownExample('svg-mark.cm'))![0];

function noScratchLeft(t: TestApp): void {
  const jobs = join(t.dataDir, 'scratch', 'jobs');
  assert.deepEqual(existsSync(jobs) ? readdirSync(jobs) : [], [], 'no job scratch left');
  const outs = join(t.dataDir, 'scratch', 'outputs');
  assert.deepEqual(existsSync(outs) ? readdirSync(outs) : [], [], 'no output scratch left');
}

test('a frame: the same bytes as on file:, kept in the bucket, nothing of it in DATA_DIR', async () => {
  await sameOnBoth('/v1/frame', { source: FRAME, params: { width: 160 } });
  assert.ok(!existsSync(join(onBucket.dataDir, 'outputs')), 'no outputs directory on the bucket service');
  noScratchLeft(onBucket);
});

test('a download streams from the bucket: 200 with type and 24 h cache, Range 206, ETag 304, HEAD', async () => {
  const { job, bytes } = await render(onBucket, '/v1/frame', { source: FRAME, params: { width: 160 } });
  const full = await onBucket.app.inject({ url: job.url });
  assert.equal(full.headers['content-type'], 'image/png');
  assert.equal(full.headers['cache-control'], 'public, max-age=86400, immutable');
  assert.equal(full.headers.etag, `"${sha(bytes)}"`);
  const part = await onBucket.app.inject({ url: job.url, headers: { range: 'bytes=10-19' } });
  assert.equal(part.statusCode, 206);
  assert.equal(part.headers['content-range'], `bytes 10-19/${bytes.length}`);
  assert.ok(part.rawPayload.equals(bytes.subarray(10, 20)));
  const last = await onBucket.app.inject({ url: job.url, headers: { range: `bytes=${bytes.length - 1}-` } });
  assert.equal(last.statusCode, 206);
  assert.ok(last.rawPayload.equals(bytes.subarray(-1)));
  const past = await onBucket.app.inject({ url: job.url, headers: { range: `bytes=${bytes.length}-` } });
  assert.equal(past.statusCode, 416);
  const again = await onBucket.app.inject({ url: job.url, headers: { 'if-none-match': String(full.headers.etag) } });
  assert.equal(again.statusCode, 304);
  const head = await onBucket.app.inject({ method: 'HEAD', url: job.url });
  assert.equal(head.headers['content-length'], String(bytes.length));
  assert.equal(head.rawPayload.length, 0);
});

test('an uploaded asset lands in the bucket, is served back and drawn: the same bytes as on file:', async () => {
  const png = ownExampleImage('sunset.png');
  const upload = async (t: TestApp) => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/assets',
      ...multipart([{ name: 'f', filename: 'sunset.png', type: 'image/png', data: png }]),
    });
    assert.equal(r.statusCode, 200, r.body);
    return r.json().assets['sunset.png'] as string;
  };
  const key = await upload(onBucket);
  // the asset and its SHA-256, kept from the upload
  assert.deepEqual(await bucketKeys('embedded/assets/'), [`embedded/assets/${key}`, `embedded/assets/${key}.sha256`]);
  assert.ok(!existsSync(join(onBucket.dataDir, 'assets')), 'no assets directory on the bucket service');
  const back = await onBucket.app.inject({ url: `/v1/assets/${key}` });
  assert.equal(back.statusCode, 200);
  assert.ok(back.rawPayload.equals(png));
  const fileKey = await upload(onFile);
  const a = await render(onBucket, '/v1/frame', {
    source: PICTURE,
    params: { width: 160 },
    assets: { '/img/sunset.png': key },
  });
  const b = await render(onFile, '/v1/frame', {
    source: PICTURE,
    params: { width: 160 },
    assets: { '/img/sunset.png': fileKey },
  });
  assert.equal(sha(a.bytes), sha(b.bytes));
  noScratchLeft(onBucket);
});

test('a GIF and a mesh: the same bytes as on file:', async () => {
  await sameOnBoth('/v1/gif', { source: MOVING, params: { width: 160, fps: 5, duration: 0.6 } });
  await sameOnBoth('/v1/mesh', { source: MARK_SVG, params: { depth: 7, size: 42, round: 0 } });
  noScratchLeft(onBucket);
});

test('the bucket down: uploads 503 storage_unavailable, a job ends in storage_unavailable, downloads 503; back: all works again', async () => {
  const before = await render(onBucket, '/v1/frame', { source: FRAME, params: { width: 160 } });
  await s3.stop();
  try {
    const up = await onBucket.app.inject({
      method: 'POST',
      url: '/v1/assets',
      ...multipart([{ name: 'f', filename: 'a.png', type: 'image/png', data: ownExampleImage('sunset.png') }]),
    });
    assert.equal(up.statusCode, 503);
    assert.equal(up.json().code, 'storage_unavailable');
    assert.ok(Number(up.headers['retry-after']) >= 1);
    const r = await post(onBucket.app, '/v1/frame', { source: FRAME, params: { width: 160 } });
    assert.equal(r.statusCode, 202);
    const failed = (await waitJob(onBucket.app, r.json().job_id, 60_000)).json();
    assert.equal(failed.status, 'error');
    assert.equal(failed.code, 'storage_unavailable');
    const down = await onBucket.app.inject({ url: before.job.url });
    assert.equal(down.statusCode, 503);
    assert.equal(down.json().code, 'storage_unavailable');
    noScratchLeft(onBucket);
  } finally {
    await s3.start();
  }
  const again = await render(onBucket, '/v1/frame', { source: FRAME, params: { width: 160 } });
  assert.equal(sha(again.bytes), sha(before.bytes));
  const old = await onBucket.app.inject({ url: before.job.url });
  assert.equal(old.statusCode, 200);
});

test('the bucket stops mid-job (while the output goes up): the job ends in storage_unavailable, then renders again', async () => {
  // the first upload of an output stops the server under it: the request is cut and every retry is refused
  let stopped: Promise<void> | undefined;
  s3.hooks.push((req) => {
    if (stopped || req.method !== 'PUT' || !req.url?.includes('/embedded/outputs/')) return false;
    stopped = s3.stop();
    return true;
  });
  const body = { source: MOVING, params: { width: 160, fps: 10, duration: 1 } };
  let failedId = '';
  try {
    const r = await post(onBucket.app, '/v1/render', body);
    failedId = r.json().job_id;
    const failed = (await waitJob(onBucket.app, r.json().job_id, 60_000)).json();
    assert.equal(failed.status, 'error', JSON.stringify(failed));
    assert.equal(failed.code, 'storage_unavailable');
    assert.ok(failed.completed_at - failed.created_at < 60_000);
    noScratchLeft(onBucket);
  } finally {
    s3.hooks.pop();
    await stopped;
    await s3.start();
  }
  const { job } = await render(onBucket, '/v1/render', body);
  assert.equal(job.status, 'ready');
  const names = (await bucketKeys('embedded/outputs/')).map((k) => k.split('/').pop()!);
  assert.ok(!names.some((n) => n.startsWith(failedId)), 'nothing of the cut job is in the bucket');
});

test('STORAGE_PUBLIC_URLS=presigned: 302 to a presigned URL that serves the same bytes, typed, as long as the output lives', async () => {
  const presigned = await startApp({
    renderer,
    ownsRenderer: false,
    config: { ...s3.useInProcess('embedded'), storagePublicUrls: 'presigned' },
  });
  try {
    const r = await runJob(presigned.app, '/v1/frame', { source: FRAME, params: { width: 160 } });
    const job = r.json();
    assert.equal(job.status, 'ready', r.body);
    const answer = await presigned.app.inject({ url: job.url });
    assert.equal(answer.statusCode, 302);
    assert.equal(answer.headers['cache-control'], 'no-store');
    const location = new URL(String(answer.headers.location));
    assert.equal(location.origin, s3.endpoint);
    const got = await fetch(location);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'image/png');
    assert.equal(got.headers.get('cache-control'), 'public, max-age=86400, immutable');
    const bytes = Buffer.from(await got.arrayBuffer());
    const streamed = await render(onBucket, '/v1/frame', { source: FRAME, params: { width: 160 } });
    assert.equal(sha(bytes), sha(streamed.bytes));
    // valid until the output's 24 hours are up, not before
    const signed = location.searchParams.get('X-Amz-Date')!;
    const signedAt = Date.parse(signed.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
    const expires = Number(location.searchParams.get('X-Amz-Expires'));
    assert.ok(signedAt + expires * 1000 >= job.completed_at + 24 * 3600_000, `${signed} + ${expires} s`);
    assert.ok(expires <= 24 * 3600 + 1);
  } finally {
    await presigned.close();
  }
});
