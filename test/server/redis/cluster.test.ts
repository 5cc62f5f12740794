// Past one machine (REDIS_URL): two API processes and two render workers on one real redis-server and one shared
// DATA_DIR. A job posted to one API is answered by the other; a 10 s video in three chunks has the same bytes with
// two workers, with one, and from the embedded service; the joined MP4 has every frame.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRedis } from '../../helpers/redis.js';
import { startProcess, type StartedProcess } from '../../helpers/started-process.js';
import { postJson, pollJob } from '../../helpers/job-client.js';
import { startApp, realRenderer, ownExample, type TestApp } from '../../helpers/app.js';
import { runJob } from '../../helpers/job-client.js';
import { LONG_SLIDE } from '../../helpers/video.js';
import { until } from '../../helpers/until.js';
import { probe } from '../../../src/render/ffmpeg/probe.js';

let redis: TestRedis;
let dataDir: string;
const procs: StartedProcess[] = [];
let apiA: StartedProcess;
let apiB: StartedProcess;
let workers: StartedProcess[] = [];

const env = () => ({ REDIS_URL: redis.url, DATA_DIR: dataDir, STALLED_INTERVAL_MS: '5000' });
before(async () => {
  redis = await TestRedis.start();
  dataDir = await mkdtemp(join(tmpdir(), 'cmr-cluster-'));
  const started = await Promise.all([
    startProcess('api', { ...env(), RENDER_CONCURRENCY: '0' }),
    startProcess('api', { ...env(), RENDER_CONCURRENCY: '0' }),
    startProcess('worker', env()),
    startProcess('worker', env()),
  ]);
  procs.push(...started);
  apiA = started[0]!;
  apiB = started[1]!;
  workers = started.slice(2);
});
after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await redis?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
async function download(base: string, url: string): Promise<Buffer> {
  const r = await fetch(`${base}${url}`);
  assert.equal(r.status, 200);
  return Buffer.from(await r.arrayBuffer());
}
const VIDEO = { source: LONG_SLIDE, params: { fps: 13, width: 320, height: 180 } };

test('a frame posted to API A is followed and polled on API B, completes, and downloads from B', async () => {
  const posted = await postJson(apiA.url!, '/v1/frame', { source: ownExample('hello.cm'), params: { width: 320 } });
  assert.equal(posted.status, 202, JSON.stringify(posted.json));
  // the events stream on B ends with the job's final view, whichever worker rendered it
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 60_000);
  const stream = await fetch(`${apiB.url}/v1/jobs/${posted.json.job_id}/events`, { signal: ctl.signal });
  let text = '';
  const reader = stream.body!.getReader();
  while (!text.includes('event: end')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString('utf8');
  }
  ctl.abort();
  clearTimeout(timer);
  assert.match(text, /event: end\ndata: \{[^\n]*"status":"ready"/);
  const done = await pollJob(apiB.url!, posted.json.job_id);
  assert.equal(done.status, 'ready', JSON.stringify(done));
  const png = await download(apiB.url!, done.url);
  assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]);
  // and A says the same
  const onA = await (await fetch(`${apiA.url}/v1/jobs/${posted.json.job_id}`)).json();
  assert.deepEqual(onA, done);
});

let twoWorkers = '';
test('a 10 s video in three chunks over two workers: every frame, the right duration, no segment left', async () => {
  const posted = await postJson(apiA.url!, '/v1/render', VIDEO);
  assert.equal(posted.status, 202, JSON.stringify(posted.json));
  const seen: number[] = [];
  const done = await pollJob(apiB.url!, posted.json.job_id, 120_000, (v) => void seen.push(v.progress));
  assert.equal(done.status, 'ready', JSON.stringify(done));
  assert.ok(
    seen.every((p) => p >= 0 && p <= 1),
    `progress ${seen}`,
  );
  const bytes = await download(apiB.url!, done.url);
  const file = join(dataDir, 'outputs', `${posted.json.job_id}.mp4`);
  const p = await probe(file);
  assert.equal(p.frames, 130);
  assert.ok(Math.abs(p.duration - 10) < 0.01, `duration ${p.duration}`);
  twoWorkers = sha(bytes);
  assert.deepEqual(await readdir(join(dataDir, 'segments')).catch(() => []), [], 'segments removed after the join');
  // both workers took part: each logged a chunk it rendered
  const renderedBy = workers.map((w) =>
    w.lines.some((l) => l.event === 'chunk_done' && l.job_id === posted.json.job_id),
  );
  assert.deepEqual(renderedBy, [true, true], 'each worker rendered at least one chunk');
});

test('a transparent VP9 WebM in two chunks over two workers: video/webm, every frame, alpha kept, the embedded bytes', async () => {
  // LONG_SLIDE without its background layer: the square over nothing
  const source = LONG_SLIDE.replace('compose [bg, fg]', 'compose [fg]');
  const body = { source, params: { fps: 7, width: 160, height: 90, codec: 'vp9', transparent: true } };
  const posted = await postJson(apiA.url!, '/v1/render', body);
  assert.equal(posted.status, 202, JSON.stringify(posted.json));
  const done = await pollJob(apiB.url!, posted.json.job_id, 120_000);
  assert.equal(done.status, 'ready', JSON.stringify(done));
  assert.equal(done.mime, 'video/webm');
  assert.match(done.url, /\.webm$/);
  const bytes = await download(apiB.url!, done.url);
  const file = join(dataDir, 'outputs', `${posted.json.job_id}.webm`);
  const p = await probe(file);
  assert.deepEqual([p.codec, p.frames], ['vp9', 70]);
  assert.ok(Math.abs(p.duration - 10) < 0.01, `duration ${p.duration}`);
  // the alpha side stream crossed the segments and the join: libvpx decodes alpha 0 in a corner of every frame
  const rgba = spawnSync(
    'ffmpeg',
    ['-v', 'error', '-c:v', 'libvpx-vp9', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'],
    {
      maxBuffer: 1 << 28,
    },
  ).stdout;
  assert.equal(rgba.length, 70 * 160 * 90 * 4);
  for (let f = 0; f < 70; f++) assert.equal(rgba[f * 160 * 90 * 4 + 3], 0, `frame ${f}: corner alpha`);
  let t: TestApp | undefined;
  try {
    t = await startApp({ renderer: realRenderer() });
    const job = (await runJob(t.app, '/v1/render', body)).json();
    assert.equal(job.status, 'ready', JSON.stringify(job));
    assert.equal(sha((await t.app.inject({ url: job.url })).rawPayload), sha(bytes), 'embedded vs two workers');
  } finally {
    await t?.close();
  }
});

test('the same video with one worker and from the embedded service: the same bytes', async () => {
  assert.ok(twoWorkers, 'needs the two-worker run');
  await workers[1]!.stop();
  // params.cache false: rendered again by the one worker, not answered from the render cache
  const posted = await postJson(apiB.url!, '/v1/render', { ...VIDEO, params: { ...VIDEO.params, cache: false } });
  const done = await pollJob(apiA.url!, posted.json.job_id);
  assert.equal(done.status, 'ready', JSON.stringify(done));
  assert.equal(sha(await download(apiA.url!, done.url)), twoWorkers, 'one worker vs two');

  let t: TestApp | undefined;
  try {
    t = await startApp({ renderer: realRenderer() });
    const job = (await runJob(t.app, '/v1/render', VIDEO)).json();
    assert.equal(job.status, 'ready', JSON.stringify(job));
    const r = await t.app.inject({ url: job.url });
    assert.equal(sha(r.rawPayload), twoWorkers, 'embedded vs two workers');
  } finally {
    await t?.close();
  }
});

test('queue positions across APIs; a chunked video cancelled on one API while rendering: cancelled, no output', async () => {
  const posted = await postJson(apiA.url!, '/v1/render', {
    ...VIDEO,
    params: { ...VIDEO.params, width: 640, height: 360 },
  });
  const id = posted.json.job_id as string;
  // cancelled once its first chunk is done and its segment kept: that segment must go with the job
  await until(
    'a chunk of the video done',
    () => workers.some((w) => w.lines.some((l) => l.job_id === id && l.event === 'chunk_done')),
    90_000,
  );
  // the one worker is busy: a frame posted now waits behind the video's other chunks, on either API
  const frame = await postJson(apiB.url!, '/v1/frame', { source: LONG_SLIDE, params: { width: 320, height: 180 } });
  const waiting = await (await fetch(`${apiA.url}/v1/jobs/${frame.json.job_id}`)).json();
  const video = await (await fetch(`${apiB.url}/v1/jobs/${id}`)).json();
  assert.equal(video.queue_position, 0, JSON.stringify(video));
  assert.ok(waiting.queue_position >= 1, JSON.stringify(waiting));
  const r = await fetch(`${apiB.url}/v1/jobs/${id}`, { method: 'DELETE' });
  assert.equal(r.status, 200);
  const body = (await r.json()) as { status: string; code: string };
  assert.deepEqual([body.status, body.code], ['error', 'cancelled']);
  // the worker stops the chunk in hand (at a progress report, or at its end) or skips the one it took up as the cancel
  // landed (the rest left the queue with the job); nothing turns it ready
  const stopped = (l: Record<string, unknown>) =>
    l.job_id === id && (l.event === 'render_stopped' || l.event === 'render_skipped');
  await until('the worker to stop the cancelled render', () => workers[0]!.lines.some(stopped), 30_000);
  const last = await (await fetch(`${apiA.url}/v1/jobs/${id}`)).json();
  assert.equal((await pollJob(apiA.url!, frame.json.job_id)).status, 'ready', 'the frame behind it still renders');
  assert.equal(last.code, 'cancelled');
  assert.ok(!workers[0]!.lines.some((l) => l.job_id === id && l.event === 'job_ready'));
  assert.deepEqual(
    (await readdir(join(dataDir, 'outputs'))).filter((n) => n.startsWith(id)),
    [],
    'no output of a cancelled job',
  );
  // its finished chunk's segment went too (before, it stayed until a worker restarted a day later)
  const segments = join(dataDir, 'segments', id);
  await until(
    () => `the cancelled job's segments to go (left: ${existsSync(segments) ? readdirSync(segments).join(', ') : ''})`,
    () => !existsSync(segments),
    30_000,
  );
});
