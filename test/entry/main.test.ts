// The service as `npm start` runs it (src/entry/server.ts): starts on the configured port, answers, renders, and
// closes cleanly on SIGTERM. And the job time limit with the real renderer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startApp, realRenderer, ownExample } from '../helpers/app.js';
import { runJob } from '../helpers/job-client.js';
import { rectGraph } from '../helpers/rect-graph.js';
import { onLogLines, spawnService } from '../helpers/service-spawn.js';
import { until } from '../helpers/until.js';
import { pollJob } from '../helpers/job-client.js';

test('main.ts: listens, renders a frame over HTTP, logs job lines with timings, exits 0 on SIGTERM', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-main-'));
  const child = spawnService('api', { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const listening = new Promise<string>((resolve, reject) => {
    onLogLines(child.stdout, (j) => {
      lines.push(j);
      if (j.msg === 'cmrender listening') resolve(String(j.address));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  try {
    const base = await listening;
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await (await fetch(`${base}/healthz`)).text(), 'ok\n');
    const r = await fetch(`${base}/v1/frame`, {
      method: 'POST',
      body: JSON.stringify({ source: ownExample('hello.cm'), params: { width: 320 } }),
    });
    assert.equal(r.status, 202);
    const { job_id } = (await r.json()) as { job_id: string };
    const job = (await pollJob(base, job_id)) as { status: string; url: string };
    assert.equal(job.status, 'ready', JSON.stringify(job));
    const out = await fetch(base + job.url);
    assert.equal(out.headers.get('content-type'), 'image/png');
    assert.equal(out.headers.get('access-control-allow-origin'), '*');
    // the job's end is logged a moment after its record turns ready: the job_ready line is the last of its lines
    await until('the job_ready log line', () => lines.some((l) => l.job_id === job_id && l.event === 'job_ready'));
    const events = lines.filter((l) => l.job_id === job_id).map((l) => l.event);
    // the same lines in both modes: the job's life, and each item of work a process takes (here the whole job)
    assert.deepEqual(events, ['job_created', 'job_started', 'render_started', 'job_ready']);
    const ready = lines.find((l) => l.job_id === job_id && l.event === 'job_ready')!;
    for (const k of ['queue_wait_ms', 'compile_ms', 'render_ms', 'encode_ms', 'total_ms'])
      assert.equal(typeof ready[k], 'number', k);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, stderr);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a job past JOB_TIMEOUT_MS with the real renderer ends in error, and the next job renders', async () => {
  const renderer = realRenderer();
  // the limit leaves the next job (a small frame on fresh pages) room on a loaded machine
  const t = await startApp({ renderer, config: { jobTimeoutMs: 8000 } });
  try {
    // admitted (its estimate, frames x pixels, is about 3.6 s) but each of its 300 frames rebuilds 4,096 shapes in
    // the page, a tenth of a second or more even on a fast machine: it outlives the 8 s limit
    const long = await runJob(t.app, '/v1/render', {
      source: rectGraph(12, true),
      params: { width: 640, height: 360, duration: 30, fps: 10 },
    });
    const j = long.json();
    assert.equal(long.statusCode, 500);
    assert.equal(j.code, 'timeout');
    assert.equal(j.message, 'render timed out after 8 s (the job limit)');
    // the aborted job's pages were closed; fresh warm pages replace them (a render slot keeps the two a video uses)
    await until(
      () => `two warm pages (idle: ${renderer.browser.idleCount})`,
      () => renderer.browser.idleCount >= 2,
      10_000,
    );
    assert.equal(renderer.browser.idleCount, 2);
    // the encoder was stopped and its partial file removed
    const left = () => readdirSync(join(t.dataDir, 'outputs')).filter((f) => f.startsWith(j.job_id));
    await until(
      () => `the partial output removed (left: ${left().join(', ')})`,
      () => left().length === 0,
      5_000,
    );
    assert.deepEqual(left(), []);
    const next = (await runJob(t.app, '/v1/frame', { source: ownExample('hello.cm'), params: { width: 320 } })).json();
    assert.equal(next.status, 'ready', JSON.stringify(next));
  } finally {
    await t.close();
  }
});

test('RENDER_CONCURRENCY=2 with the real renderer: two pages render at once, same bytes as one at a time', async () => {
  const renderer = realRenderer(2);
  const t = await startApp({ renderer, config: { renderConcurrency: 2 } });
  try {
    // the start waits for one warm page and warms a page per render slot behind it (a slot's second page, which only
    // a video of 8 frames or more draws with, is warmed when one first asks for it: test/render/page/warm-pool.test.ts)
    await renderer.browser.refill();
    assert.equal(renderer.browser.idleCount, 2, 'two render slots, a warm page each');
    const body = (w: number) => ({ source: ownExample('hello.cm'), params: { width: w, duration: 0.5, fps: 10 } });
    const [a, b] = await Promise.all([runJob(t.app, '/v1/render', body(320)), runJob(t.app, '/v1/render', body(640))]);
    assert.equal(a.json().status, 'ready');
    assert.equal(b.json().status, 'ready');
    const again = (await runJob(t.app, '/v1/render', body(320))).json();
    const file = (j: { url: string }) => readFileSync(join(t.dataDir, 'outputs', j.url.split('/').pop()!));
    assert.ok(file(a.json()).equals(file(again)));
  } finally {
    await t.close();
  }
});
