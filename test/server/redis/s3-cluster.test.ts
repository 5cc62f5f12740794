// Past one host: one API process and two render workers that share nothing but a real redis-server and an
// S3-compatible bucket (s3rver on a loopback port): each has its own DATA_DIR. A 10 s video in three chunks is
// rendered over both workers (segments go through the bucket, the join downloads them and uploads the MP4) with the
// same bytes as the embedded service on file:; a repeat is answered from the render cache; an uploaded asset reaches
// a worker through the bucket; a bucket that goes away ends a job in storage_unavailable, and once it is back the
// same POST renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { TestRedis, freePort } from '../../helpers/redis.js';
import { TestS3 } from '../../helpers/s3.js';
import { startProcess, type StartedProcess } from '../../helpers/started-process.js';
import { postJson, pollJob } from '../../helpers/job-client.js';
import { startApp, realRenderer, ownExampleImage, type TestApp } from '../../helpers/app.js';
import { runJob } from '../../helpers/job-client.js';
import { LONG_SLIDE } from '../../helpers/video.js';
import { probe } from '../../../src/render/ffmpeg/probe.js';

let redis: TestRedis;
let s3: TestS3;
const dirs: string[] = [];
const procs: StartedProcess[] = [];
let api: StartedProcess;
let workers: StartedProcess[] = [];

before(async () => {
  redis = await TestRedis.start();
  s3 = await TestS3.start();
  s3.useInProcess();
  for (let i = 0; i < 3; i++) dirs.push(await mkdtemp(join(tmpdir(), 'cmr-s3-cluster-')));
  const env = (dataDir: string) => ({
    ...s3.env('cluster'),
    REDIS_URL: redis.url,
    DATA_DIR: dataDir,
    STALLED_INTERVAL_MS: '5000',
    RENDER_CACHE: 'on',
  });
  const started = await Promise.all([
    startProcess('api', { ...env(dirs[0]!), RENDER_CONCURRENCY: '0' }),
    startProcess('worker', env(dirs[1]!)),
    startProcess('worker', env(dirs[2]!)),
  ]);
  procs.push(...started);
  api = started[0]!;
  workers = started.slice(1);
});
after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await redis?.close();
  await s3?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
async function download(url: string): Promise<Buffer> {
  const r = await fetch(`${api.url}${url}`);
  assert.equal(r.status, 200);
  return Buffer.from(await r.arrayBuffer());
}
async function keys(prefix: string): Promise<string[]> {
  const c = new S3Client({ forcePathStyle: true });
  const r = await c.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  c.destroy();
  return (r.Contents ?? []).map((o) => o.Key!);
}
/** Files left under a DATA_DIR's scratch (a worker removes its scratch when a part ends). */
function scratchFiles(dir: string): string[] {
  const root = join(dir, 'scratch');
  return existsSync(root)
    ? readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];
}

// 130 frames at 13 fps: three chunks (60, 60, 10), kept small
const VIDEO = { source: LONG_SLIDE, params: { fps: 13, width: 160, height: 90 } };
let twoWorkers = '';
/** how long the two workers took to render it, from the record's own times */
let renderedMs = 0;

test('a 10 s video in three chunks over two workers with their own DATA_DIR: every frame, through the bucket', async () => {
  const posted = await postJson(api.url!, '/v1/render', VIDEO);
  assert.equal(posted.status, 202, JSON.stringify(posted.json));
  const id = posted.json.job_id as string;
  const done = await pollJob(api.url!, id, 180_000);
  assert.equal(done.status, 'ready', JSON.stringify(done));
  const bytes = await download(done.url);
  const file = join(dirs[0]!, 'probe.mp4');
  writeFileSync(file, bytes);
  const p = await probe(file);
  assert.equal(p.frames, 130);
  assert.ok(Math.abs(p.duration - 10) < 0.01, `duration ${p.duration}`);
  twoWorkers = sha(bytes);
  renderedMs = done.completed_at - done.created_at;
  assert.deepEqual(await keys(`cluster/outputs/${id}`), [`cluster/outputs/${id}.mp4`]);
  assert.deepEqual(await keys('cluster/segments/'), [], 'segments removed after the join');
  const renderedBy = workers.map((w) => w.lines.some((l) => l.event === 'chunk_done' && l.job_id === id));
  assert.deepEqual(renderedBy, [true, true], 'each worker rendered at least one chunk');
  for (const d of dirs) {
    assert.ok(!existsSync(join(d, 'outputs')) && !existsSync(join(d, 'segments')), `no shared files in ${d}`);
    assert.deepEqual(scratchFiles(d), [], `no scratch left in ${d}`);
  }
});

test('the same video from the embedded service on file:: the same bytes', async () => {
  assert.ok(twoWorkers, 'needs the two-worker run');
  let t: TestApp | undefined;
  try {
    t = await startApp({ renderer: realRenderer() });
    const job = (await runJob(t.app, '/v1/render', VIDEO)).json();
    assert.equal(job.status, 'ready', JSON.stringify(job));
    assert.equal(sha((await t.app.inject({ url: job.url })).rawPayload), twoWorkers);
  } finally {
    await t?.close();
  }
});

test('the repeat is answered from the render cache the workers filled: nothing rendered again, the same bytes, cached: true', async (t) => {
  assert.ok(twoWorkers, 'needs the two-worker run');
  const posted = await postJson(api.url!, '/v1/render', VIDEO);
  const done = await pollJob(api.url!, posted.json.job_id, 30_000);
  assert.equal(done.status, 'ready');
  assert.equal(done.cached, true);
  const ms = done.completed_at - done.created_at;
  t.diagnostic(`Redis + bucket: cached repeat ready in ${ms} ms; rendering it took ${renderedMs} ms`);
  // the recorded fact, not a time a loaded machine can stretch: no worker started a render or a chunk of the repeat
  const drewIt = workers.filter((w) =>
    w.lines.some((l) => l.job_id === posted.json.job_id && (l.event === 'render_started' || l.event === 'chunk_done')),
  );
  assert.equal(drewIt.length, 0, 'a worker rendered the cached repeat');
  assert.equal(sha(await download(done.url)), twoWorkers);
  // Cache-Control: no-cache renders again (a frame: quick)
  const fresh = await fetch(`${api.url}/v1/frame`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' },
    body: JSON.stringify({ source: LONG_SLIDE, params: { width: 160, height: 90 } }),
  });
  const f = await pollJob(api.url!, ((await fresh.json()) as { job_id: string }).job_id, 60_000);
  assert.equal(f.status, 'ready');
  assert.equal(f.cached, undefined);
});

test('an asset uploaded to the API reaches a worker through the bucket', async () => {
  const form = new FormData();
  form.append('f', new Blob([ownExampleImage('sunset.png')], { type: 'image/png' }), 'sunset.png');
  const up = await fetch(`${api.url}/v1/assets`, { method: 'POST', body: form });
  assert.equal(up.status, 200);
  const key = ((await up.json()) as { assets: Record<string, string> }).assets['sunset.png']!;
  // the asset and its SHA-256, kept from the upload
  assert.deepEqual(await keys(`cluster/assets/${key}`), [`cluster/assets/${key}`, `cluster/assets/${key}.sha256`]);
  const source = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  let bg = image("/img/sunset.png").fit(cover);\n  compose [bg]\n}\n`;
  const posted = await postJson(api.url!, '/v1/frame', {
    source,
    params: { width: 160 },
    assets: { '/img/sunset.png': key },
  });
  assert.equal(posted.status, 202, JSON.stringify(posted.json));
  const done = await pollJob(api.url!, posted.json.job_id, 60_000);
  assert.equal(done.status, 'ready', JSON.stringify(done));
  assert.ok((await download(done.url)).subarray(1, 4).equals(Buffer.from('PNG')));
});

test('the bucket away: a job ends in storage_unavailable (never pending), an upload is 503; back: it renders', async () => {
  const body = { source: LONG_SLIDE, params: { width: 160, height: 90, at: 3 } };
  await s3.stop();
  try {
    const posted = await postJson(api.url!, '/v1/frame', body);
    assert.equal(posted.status, 202, JSON.stringify(posted.json));
    const failed = await pollJob(api.url!, posted.json.job_id, 60_000);
    assert.equal(failed.status, 'error', JSON.stringify(failed));
    assert.equal(failed.code, 'storage_unavailable');
    const form = new FormData();
    form.append('f', new Blob([ownExampleImage('sunset.png')], { type: 'image/png' }), 'sunset.png');
    const up = await fetch(`${api.url}/v1/assets`, { method: 'POST', body: form });
    assert.equal(up.status, 503);
    assert.equal(((await up.json()) as { code: string }).code, 'storage_unavailable');
  } finally {
    await s3.start();
  }
  const again = await postJson(api.url!, '/v1/frame', body);
  const done = await pollJob(api.url!, again.json.job_id, 60_000);
  assert.equal(done.status, 'ready', JSON.stringify(done));
});

test('the bucket stops mid-job (a chunk segment going up): the video ends in storage_unavailable; back: it renders', async () => {
  // a video of its own (not in the cache): the first segment upload stops the server under it
  const body = { source: LONG_SLIDE, params: { fps: 13, width: 160, height: 90, duration: 6 } };
  let stopped: Promise<void> | undefined;
  s3.hooks.push((req) => {
    if (stopped || req.method !== 'PUT' || !req.url?.includes('/cluster/segments/')) return false;
    stopped = s3.stop();
    return true;
  });
  let id = '';
  try {
    const posted = await postJson(api.url!, '/v1/render', body);
    assert.equal(posted.status, 202, JSON.stringify(posted.json));
    id = posted.json.job_id;
    const failed = await pollJob(api.url!, id, 120_000);
    assert.equal(failed.status, 'error', JSON.stringify(failed));
    assert.equal(failed.code, 'storage_unavailable');
  } finally {
    s3.hooks.pop();
    await stopped;
    await s3.start();
  }
  const again = await postJson(api.url!, '/v1/render', body);
  const done = await pollJob(api.url!, again.json.job_id, 120_000);
  assert.equal(done.status, 'ready', JSON.stringify(done));
  assert.deepEqual(await keys(`cluster/outputs/${id}`), [], 'nothing of the cut job in the bucket');
  for (const d of dirs.slice(1)) assert.deepEqual(scratchFiles(d), [], `no scratch left in ${d}`);
});

test('an API or a worker whose bucket cannot be reached at start stops with one line, exit status 1', async () => {
  const closed = await freePort();
  for (const role of ['api', 'worker'] as const) {
    const dir = await mkdtemp(join(tmpdir(), 'cmr-s3-nobucket-'));
    dirs.push(dir);
    await assert.rejects(
      startProcess(role, {
        ...s3.env('cluster'),
        AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${closed}`,
        REDIS_URL: redis.url,
        DATA_DIR: dir,
        ...(role === 'api' ? { RENDER_CONCURRENCY: '0' } : {}),
      }),
      /exited with 1/,
    );
  }
});
