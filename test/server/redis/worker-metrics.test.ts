// A Redis-mode render worker's own HTTP server (METRICS_PORT, issue 25): an API that renders nothing and one worker on
// a real redis-server; a frame and a video of two chunks go through the API, and the worker's /metrics, parsed with
// Prometheus' own parser, moved by exactly what the worker did; /healthz and /readyz answer for it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRedis } from '../../helpers/redis.js';
import { startProcess, type StartedProcess } from '../../helpers/started-process.js';
import { postJson, pollJob } from '../../helpers/job-client.js';
import { ownExample } from '../../helpers/app.js';
import { LONG_SLIDE } from '../../helpers/video.js';
import { parseExposition, valueOf, type Sample } from '../../helpers/prometheus.js';
import { LIMITS } from '../../../src/contract/limits.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';
import { until } from '../../helpers/until.js';

let redis: TestRedis;
let dataDir: string;
const procs: StartedProcess[] = [];
let api: StartedProcess;
let worker: StartedProcess;
let metricsAt: string;

before(async () => {
  redis = await TestRedis.start();
  dataDir = await mkdtemp(join(tmpdir(), 'cmr-worker-metrics-'));
  const env = { REDIS_URL: redis.url, DATA_DIR: dataDir, WEBHOOK_ALLOW: '127.0.0.0/8' };
  [api, worker] = await Promise.all([
    startProcess('api', { ...env, RENDER_CONCURRENCY: '0' }),
    startProcess('worker', { ...env, RENDER_CONCURRENCY: '1', METRICS_PORT: '0' }),
  ]);
  procs.push(api, worker);
  const ready = worker.lines.find((l) => l.msg === 'cmrender worker ready');
  metricsAt = String(ready?.metrics_address);
  assert.match(metricsAt, /^http:\/\/127\.0\.0\.1:\d+$/, 'the ready line says where the port was bound');
});
after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await redis?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function scrape(): Promise<Sample[]> {
  const r = await fetch(`${metricsAt}/metrics`);
  assert.equal(r.status, 200);
  assert.match(String(r.headers.get('content-type')), /^text\/plain; version=0\.0\.4/);
  return parseExposition(await r.text());
}

/** Every sample of a metric, by its labels (JSON), so a test can say "these and nothing else". */
function series(samples: Sample[], name: string): Record<string, number> {
  return Object.fromEntries(
    samples.filter((s) => s.name === name).map((s) => [JSON.stringify(Object.entries(s.labels).sort()), s.value]),
  );
}
const key = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).sort());

test('the worker answers /healthz and /readyz, and 404 elsewhere, in the error envelope', async () => {
  for (const path of ['/healthz', '/readyz']) {
    const r = await fetch(`${metricsAt}${path}`);
    assert.equal(r.status, 200, path);
    assert.equal(await r.text(), 'ok\n');
  }
  const r = await fetch(`${metricsAt}/v1/frame`);
  assert.equal(r.status, 404);
  assert.deepEqual(await r.json(), { error: 'not_found', code: 'not_found' });
});

test("a frame, then a video in two chunks: the worker's counters moved by exactly what it rendered", async () => {
  const before = await scrape();
  assert.equal(valueOf(before, 'cmrender_chromium_launches_total'), 1, 'one launch at start');
  assert.deepEqual(series(before, 'cmrender_worker_renders_total'), {}, 'nothing rendered yet');
  assert.ok(
    before.some((s) => s.name === 'process_resident_memory_bytes'),
    "Node's process metrics",
  );

  const frame = await postJson(api.url!, '/v1/frame', { source: ownExample('hello.cm'), params: { width: 64 } });
  assert.equal(frame.status, 202, JSON.stringify(frame.json));
  assert.equal((await pollJob(api.url!, frame.json.job_id)).status, 'ready');

  const fps = 13;
  const frames = LIMITS.videoChunkFrames + 5;
  const video = await postJson(api.url!, '/v1/render', {
    source: LONG_SLIDE,
    params: { fps, duration: frames / fps, width: 64, height: 36 },
  });
  assert.equal(video.status, 202, JSON.stringify(video.json));
  const done = await pollJob(api.url!, video.json.job_id);
  assert.equal(done.status, 'ready', JSON.stringify(done));

  // the worker counts the join a moment after the job shows ready: wait (bounded) for it, then every count is exact
  let after = await scrape();
  await until(
    () => `three render series (got ${JSON.stringify(series(after, 'cmrender_worker_renders_total'))})`,
    async () => Object.keys(series((after = await scrape()), 'cmrender_worker_renders_total')).length >= 3,
    5_000,
  );
  assert.deepEqual(series(after, 'cmrender_worker_renders_total'), {
    [key({ kind: 'frame', part: 'whole', status: 'ready' })]: 1,
    [key({ kind: 'video', part: 'chunk', status: 'ready' })]: 2,
    [key({ kind: 'video', part: 'join', status: 'ready' })]: 1,
  });
  assert.deepEqual(series(after, 'cmrender_jobs_ended_total'), {
    [key({ kind: 'frame', status: 'ready' })]: 1,
    [key({ kind: 'video', status: 'ready' })]: 1,
  });
  assert.deepEqual(series(after, 'cmrender_frames_rendered_total'), {
    [key({ kind: 'frame' })]: 1,
    [key({ kind: 'video' })]: frames,
  });
  assert.equal(valueOf(after, 'cmrender_render_duration_seconds_count', { kind: 'frame' }), 1);
  assert.equal(valueOf(after, 'cmrender_render_duration_seconds_count', { kind: 'video' }), 1);
  // each stage is observed once per piece drawn: once for the frame, once per chunk; the join once
  const stages = after.filter((s) => s.name === 'cmrender_render_stage_duration_seconds_count');
  assert.ok(
    stages.some((s) => s.labels.kind === 'frame' && s.labels.stage === 'encode'),
    JSON.stringify(stages),
  );
  for (const s of stages) {
    const want = s.labels.kind === 'frame' || s.labels.stage === 'join' ? 1 : 2;
    assert.equal(s.value, want, `${s.labels.kind} ${s.labels.stage}`);
  }
  assert.equal(valueOf(after, 'cmrender_render_stage_duration_seconds_count', { kind: 'video', stage: 'join' }), 1);
  assert.equal(valueOf(after, 'cmrender_chromium_launches_total'), 1, 'no relaunch');
  assert.equal(valueOf(after, 'cmrender_page_crashes_total'), 0);
  assert.equal(valueOf(after, 'cmrender_worker_renders_in_progress'), 0);
});

test('a webhook the worker delivers is counted on its /metrics by outcome (the API delivered none)', async () => {
  const rx = await startReceiver((n) => (n === 1 ? 500 : 204));
  try {
    const before = await scrape();
    const posted = await postJson(api.url!, '/v1/frame', {
      source: ownExample('hello.cm'),
      params: { width: 48 },
      webhook: { url: rx.url },
    });
    assert.equal(posted.status, 202, JSON.stringify(posted.json));
    // the first attempt answered 500 and was retried; the second delivered
    await rx.waitFor(2, 30_000);
    // the attempt is counted once its outcome is written to the record, just after the receiver answered
    let after = await scrape();
    const moved = (outcome: string) =>
      valueOf(after, 'cmrender_webhook_deliveries_total', { outcome }) -
      valueOf(before, 'cmrender_webhook_deliveries_total', { outcome });
    await until(
      () => `the delivery counted delivered (failed ${moved('failed')}, delivered ${moved('delivered')})`,
      async () => {
        after = await scrape();
        return moved('delivered') >= 1;
      },
      { timeoutMs: 10_000, pollMs: 100 },
    );
    assert.deepEqual([moved('failed'), moved('delivered'), moved('gave_up')], [1, 1, 0]);
    assert.equal(rx.hits.length, 2, 'each attempt once');
  } finally {
    await rx.close();
  }
});
