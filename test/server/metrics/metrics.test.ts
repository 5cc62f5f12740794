// GET /metrics as Prometheus scrapes it: parsed by Prometheus' own text-format parser (test/helpers/prometheus.ts),
// scraped before and after a real frame, a real video and a refused request; every counter moves by exactly what
// happened. METRICS=off: no route.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, realRenderer, FakeRenderer, ownExample, type TestApp } from '../../helpers/app.js';
import { post, runJob } from '../../helpers/job-client.js';
import { parseExposition, valueOf, type Sample } from '../../helpers/prometheus.js';
import { until } from '../../helpers/until.js';
import { killBrowser } from '../../helpers/kill-browser.js';

let t: TestApp;
const renderer = realRenderer();
before(async () => {
  t = await startApp({ renderer });
});
after(async () => {
  await t?.close();
});

async function scrape(app = t.app) {
  const r = await app.inject({ url: '/metrics' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parseExposition(r.body);
}

/**
 * Scrapes until the job's end is counted (its record turns ready a moment before the event that counts it reaches
 * the metrics), bounded; then the test compares recorded counts.
 */
async function scrapeAfterEnd(before: Sample[], kind: string) {
  let s: Sample[] = [];
  await until(
    `the ${kind} job's end counted in cmrender_jobs_ended_total`,
    async () => moved(before, (s = await scrape()), 'cmrender_jobs_ended_total', { kind, status: 'ready' }) >= 1,
    10_000,
  );
  return s;
}

/** What moved between two scrapes, for one sample. */
const moved = (a: Sample[], b: Sample[], name: string, labels: Record<string, string> = {}) =>
  valueOf(b, name, labels) - valueOf(a, name, labels);

test('a frame, a video and a refused POST move the counters by exactly what happened', async () => {
  const source = ownExample('hello.cm');
  const s0 = await scrape();
  // the renderer started once before any job: one Chromium launch, no crash
  assert.equal(valueOf(s0, 'cmrender_chromium_launches_total'), 1);
  assert.equal(valueOf(s0, 'cmrender_page_crashes_total'), 0);
  assert.equal(valueOf(s0, 'cmrender_queue_depth'), 0);
  assert.equal(valueOf(s0, 'cmrender_jobs_running'), 0);

  const frame = (await runJob(t.app, '/v1/frame', { source, params: { width: 160, height: 90 } })).json();
  assert.equal(frame.status, 'ready');
  const s1 = await scrapeAfterEnd(s0, 'frame');
  assert.equal(moved(s0, s1, 'cmrender_jobs_accepted_total', { kind: 'frame' }), 1);
  assert.equal(moved(s0, s1, 'cmrender_jobs_ended_total', { kind: 'frame', status: 'ready' }), 1);
  assert.equal(moved(s0, s1, 'cmrender_frames_rendered_total', { kind: 'frame' }), 1);
  assert.equal(moved(s0, s1, 'cmrender_render_duration_seconds_count', { kind: 'frame' }), 1);
  for (const stage of ['compile', 'draw', 'encode'])
    assert.equal(moved(s0, s1, 'cmrender_render_stage_duration_seconds_count', { kind: 'frame', stage }), 1, stage);
  const frameBytes = Number((await t.app.inject({ method: 'HEAD', url: frame.url })).headers['content-length']);
  assert.equal(moved(s0, s1, 'cmrender_output_bytes'), frameBytes, 'the stored bytes grew by the PNG');

  const video = (
    await runJob(t.app, '/v1/render', { source, params: { width: 160, height: 90, fps: 10, duration: 0.5 } })
  ).json();
  assert.equal(video.status, 'ready');
  const s2 = await scrapeAfterEnd(s1, 'video');
  assert.equal(moved(s1, s2, 'cmrender_jobs_accepted_total', { kind: 'video' }), 1);
  assert.equal(moved(s1, s2, 'cmrender_jobs_accepted_total', { kind: 'frame' }), 0);
  assert.equal(moved(s1, s2, 'cmrender_jobs_ended_total', { kind: 'video', status: 'ready' }), 1);
  assert.equal(moved(s1, s2, 'cmrender_frames_rendered_total', { kind: 'video' }), 5, '0.5 s at 10 fps');
  assert.equal(moved(s1, s2, 'cmrender_render_duration_seconds_count', { kind: 'video' }), 1);
  for (const stage of ['compile', 'evaluate', 'draw', 'read', 'encode'])
    assert.equal(moved(s1, s2, 'cmrender_render_stage_duration_seconds_count', { kind: 'video', stage }), 1, stage);
  const videoBytes = Number((await t.app.inject({ method: 'HEAD', url: video.url })).headers['content-length']);
  assert.equal(moved(s1, s2, 'cmrender_output_bytes'), videoBytes, 'the stored bytes grew by the MP4');

  const refused = await post(t.app, '/v1/frame', { params: { width: 160 } });
  assert.equal(refused.statusCode, 400);
  assert.equal(refused.json().code, 'missing_source');
  const s3 = await scrape();
  assert.equal(moved(s2, s3, 'cmrender_jobs_refused_total', { code: 'missing_source' }), 1);
  for (const kind of ['frame', 'video']) {
    assert.equal(moved(s2, s3, 'cmrender_jobs_accepted_total', { kind }), 0, 'a refusal is not a job');
    assert.equal(moved(s2, s3, 'cmrender_jobs_ended_total', { kind, status: 'ready' }), 0);
  }
  // nothing else went on: no relaunch, no crash, nothing waiting, no webhook
  assert.equal(valueOf(s3, 'cmrender_chromium_launches_total'), 1);
  assert.equal(valueOf(s3, 'cmrender_page_crashes_total'), 0);
  assert.equal(valueOf(s3, 'cmrender_queue_depth'), 0);
  assert.equal(
    s3.filter((s) => s.name === 'cmrender_webhook_deliveries_total').length,
    0,
    'no delivery, no outcome label',
  );
  assert.equal(valueOf(s3, 'cmrender_output_budget_bytes'), 10 * 1024 ** 3);
});

test('a Chromium crash: the next job relaunches it and cmrender_chromium_launches_total moves by one', async () => {
  const before = await scrape();
  killBrowser(renderer.browser);
  const frame = await runJob(t.app, '/v1/frame', {
    source: ownExample('hello.cm'),
    params: { width: 160, height: 90 },
  });
  assert.equal(frame.json().status, 'ready');
  const after = await scrape();
  assert.equal(moved(before, after, 'cmrender_chromium_launches_total'), 1);
  assert.equal(moved(before, after, 'cmrender_page_crashes_total'), 0, 'the browser died, not a page');
});

test('names follow the conventions: cmrender_ prefix, _total counters, base units, no job ids; Node metrics too', async () => {
  const samples = await scrape();
  const ours = samples.filter((s) => s.name.startsWith('cmrender_'));
  assert.ok(ours.length > 10, `${ours.length} cmrender_ samples`);
  for (const s of ours) {
    for (const v of Object.values(s.labels))
      assert.doesNotMatch(v, /[0-9a-f]{8}-[0-9a-f]{4}/, `${s.name} has no job id`);
    if ((s as { type?: string }).type === 'counter') assert.match(s.name, /_total$|_created$/, s.name);
    assert.doesNotMatch(s.name, /_ms|milliseconds/, `${s.name} is in base units`);
  }
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds'])
    assert.ok(
      samples.some((s) => s.name === name),
      name,
    );
});

test('METRICS=off: GET /metrics is 404 and the rest answers as before', async () => {
  const off = await startApp({ renderer: new FakeRenderer(), config: { metrics: false } });
  try {
    assert.equal((await off.app.inject({ url: '/metrics' })).statusCode, 404);
    assert.equal(off.app.metrics, null);
    assert.equal((await post(off.app, '/v1/frame', { source: ownExample('hello.cm') })).statusCode, 202);
  } finally {
    await off.close();
  }
});
