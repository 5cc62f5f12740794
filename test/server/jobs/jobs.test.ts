// GET /v1/jobs/{id}: the three job shapes and their status codes, queue position and progress, FIFO order,
// concurrency, the job time limit and retention. A fake renderer: these tests are about HTTP shape and lifecycle.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedLine, startApp, FakeRenderer, JobFailure, gate, type TestApp } from '../../helpers/app.js';
import { post, runJob, waitJob, PNG_SIGNATURE } from '../../helpers/job-client.js';
import { until } from '../../helpers/until.js';
import { MemoryJobStore } from '../../../src/server/jobs/store/memory.js';
import { CODE } from '../../../src/contract/error-codes.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});
async function fresh(config = {}, now?: () => number) {
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake, config, now });
  apps.push(t);
  return { t, fake };
}

test('unknown ids answer 404 {"error":"not_found","code":"not_found"}, UUID or not, leaking nothing', async () => {
  const { t } = await fresh();
  for (const id of [
    '00000000-0000-4000-8000-000000000000',
    'not-a-uuid',
    '..%2F..%2Fetc%2Fpasswd',
    '%00',
    'A'.repeat(300),
  ]) {
    const r = await t.app.inject({ url: `/v1/jobs/${id}` });
    assert.equal(r.statusCode, 404, id);
    const { message, ...fixed } = r.json() as { message?: string };
    assert.deepEqual(fixed, { error: 'not_found', code: 'not_found' });
    // a job id the route looks up (a UUID) also says what is missing and how long jobs are kept
    if (id.startsWith('0000'))
      assert.equal(
        message,
        `job ${id} is not here: jobs and their outputs are kept 24 hours after the job ends, then removed (and a job another API key made is not shown)`,
      );
    else assert.equal(message, undefined, id);
    assert.match(String(r.headers['content-type']), /^application\/json/);
  }
});

test('a started app started the renderer, and closing the app closes it', async () => {
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake });
  assert.equal(fake.started, true);
  await t.close();
  assert.equal(fake.closed, true);
});

test('pending: required fields plus queue_position and progress; ready: url, mime, width, height; 200 both', async () => {
  const { t, fake } = await fresh();
  const g = gate();
  let progressSeen!: () => void;
  const reached = new Promise<void>((r) => (progressSeen = r));
  fake.behaviour = async (_job, hooks) => {
    hooks.onProgress?.(0.25);
    progressSeen();
    await g.promise;
  };
  const a = (await post(t.app, '/v1/frame', { source: SRC, params: { width: 40, height: 20 } })).json();
  const b = (await post(t.app, '/v1/render', { source: SRC })).json();
  await reached;
  const ra = await t.app.inject({ url: `/v1/jobs/${a.job_id}` });
  assert.equal(ra.statusCode, 200);
  const va = ra.json();
  assert.deepEqual(Object.keys(va).sort(), ['created_at', 'job_id', 'kind', 'progress', 'queue_position', 'status']);
  assert.equal(va.status, 'pending');
  assert.equal(va.kind, 'frame');
  assert.equal(va.queue_position, 0);
  assert.equal(va.progress, 0.25);
  assert.ok(Number.isInteger(va.created_at) && Math.abs(va.created_at - Date.now()) < 60_000);
  const vb = (await t.app.inject({ url: `/v1/jobs/${b.job_id}` })).json();
  assert.equal(vb.status, 'pending');
  assert.equal(vb.kind, 'video');
  assert.equal(vb.queue_position, 1);
  assert.equal(vb.progress, 0);
  fake.behaviour = null;
  g.open();
  const done = await waitJob(t.app, a.job_id);
  assert.equal(done.statusCode, 200);
  const v = done.json();
  assert.deepEqual(Object.keys(v).sort(), [
    'completed_at',
    'created_at',
    'height',
    'job_id',
    'kind',
    'mime',
    'status',
    'url',
    'width',
  ]);
  assert.equal(v.status, 'ready');
  assert.equal(v.url, `/v1/outputs/${a.job_id}.png`);
  assert.equal(v.mime, 'image/png');
  assert.equal(v.width, 40);
  assert.equal(v.height, 20);
  assert.ok(v.completed_at >= v.created_at);
  const vv = (await waitJob(t.app, b.job_id)).json();
  assert.equal(vv.url, `/v1/outputs/${b.job_id}.mp4`);
  assert.equal(vv.mime, 'video/mp4');
});

test('error: HTTP 500 with the job body; a compile failure carries code and diagnostics, a render failure its registered code', async () => {
  const { t, fake } = await fresh();
  fake.behaviour = (job) => {
    if (job.source.includes('COMPILE'))
      throw new JobFailure('PAR100 syntax error at line 1, column 2', 'PAR100', [
        { code: 'PAR100', message: 'syntax error', line: 1, column: 2 },
      ]);
    if (job.source.includes('CRASH')) throw new JobFailure('browser crashed during the render', CODE.page_crashed);
    throw new Error('secret internal detail /etc/shadow');
  };
  const c = await waitJob(t.app, (await post(t.app, '/v1/frame', { source: 'COMPILE' })).json().job_id);
  assert.equal(c.statusCode, 500);
  const vc = c.json();
  assert.deepEqual(Object.keys(vc).sort(), [
    'code',
    'completed_at',
    'created_at',
    'diagnostics',
    'job_id',
    'kind',
    'message',
    'status',
  ]);
  assert.equal(vc.status, 'error');
  assert.equal(vc.message, 'PAR100 syntax error at line 1, column 2');
  assert.equal(vc.code, 'PAR100');
  // each diagnostic links to its code's explanation (GET /v1/diagnostics/{code})
  assert.deepEqual(vc.diagnostics, [
    { code: 'PAR100', message: 'syntax error', line: 1, column: 2, docs: '/v1/diagnostics/PAR100' },
  ]);
  const r = (await waitJob(t.app, (await post(t.app, '/v1/render', { source: 'CRASH' })).json().job_id)).json();
  assert.equal(r.status, 'error');
  assert.equal(r.code, 'page_crashed');
  assert.equal(r.message, 'browser crashed during the render');
  assert.equal('diagnostics' in r, false);
  const x = await waitJob(t.app, (await post(t.app, '/v1/render', { source: 'OTHER' })).json().job_id);
  assert.equal(x.statusCode, 500);
  // an unexpected error: a registered code and a plain sentence, never its own words
  assert.equal(x.json().code, 'internal_error');
  assert.equal(x.json().message, 'render failed: internal error');
  assert.doesNotMatch(x.body, /secret|shadow/);
});

test('jobs run first in, first out, one at a time by default', async () => {
  const { t, fake } = await fresh();
  let running = 0;
  let maxRunning = 0;
  fake.behaviour = async () => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise((r) => setTimeout(r, 15));
    running--;
  };
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await post(t.app, '/v1/frame', { source: `${SRC}// ${i}` })).json().job_id);
  await embeddedLine(t.app).onIdle();
  assert.deepEqual(
    fake.calls.map((c) => c.id),
    ids,
  );
  assert.equal(maxRunning, 1);
});

test('RENDER_CONCURRENCY raises the number of renders at once', async () => {
  const { t, fake } = await fresh({ renderConcurrency: 2 });
  const g = gate();
  let inside = 0;
  let bothIn!: () => void;
  const both = new Promise<void>((r) => (bothIn = r));
  fake.behaviour = async () => {
    if (++inside === 2) bothIn();
    await g.promise;
  };
  const a = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  const b = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  const c = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  await both;
  const pos = async (id: string) => (await t.app.inject({ url: `/v1/jobs/${id}` })).json().queue_position;
  assert.deepEqual([await pos(a), await pos(b), await pos(c)], [0, 0, 1]);
  g.open();
  await embeddedLine(t.app).onIdle();
});

test('a job past JOB_TIMEOUT_MS ends in error saying so, and the next job starts', async () => {
  // asserted on the records, not on how fast the machine is: the limit is long enough for the next job (a fake
  // render of milliseconds, but journal writes and a loaded machine around it) to finish inside its own limit, and
  // the waits are bounded far above it (a hang that ignores its abort holds the slot STOP_SETTLE_MS, 5 s, first)
  const LIMIT_MS = 1500;
  const { t, fake } = await fresh({ jobTimeoutMs: LIMIT_MS });
  let aborted = false;
  fake.behaviour = async (job, hooks) => {
    if (job.source === 'HANG') {
      await new Promise<void>((r) => hooks.signal.addEventListener('abort', () => r()));
      aborted = true;
      await new Promise(() => {}); // ignores the abort: the service must not wait for it
    }
  };
  const hang = (await post(t.app, '/v1/frame', { source: 'HANG' })).json().job_id;
  const next = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  const h = await waitJob(t.app, hang, 60_000);
  assert.equal(h.statusCode, 500);
  assert.match(h.json().message, /timed out/);
  assert.equal(h.json().code, 'timeout');
  assert.equal(aborted, true);
  const hung = (await t.app.jobs.get(hang))!;
  assert.ok(hung.completed_at! - hung.started_at! >= LIMIT_MS, 'it ran its whole limit, not less');
  const n = await waitJob(t.app, next, 60_000);
  assert.equal(n.json().status, 'ready');
  const after = (await t.app.jobs.get(next))!;
  assert.ok(after.started_at! >= hung.completed_at!, 'the next job started once the slot was given up');
});

test('retention: 24 h after the output was written the job answers 404 and the file is gone', async () => {
  let clock = Date.now();
  const { t, fake } = await fresh({}, () => clock);
  const ok = (await waitJob(t.app, (await post(t.app, '/v1/frame', { source: SRC })).json().job_id)).json();
  fake.behaviour = () => {
    throw new JobFailure('render failed: x', CODE.page_failed);
  };
  const bad = (await waitJob(t.app, (await post(t.app, '/v1/frame', { source: SRC })).json().job_id)).json();
  const file = join(t.dataDir, 'outputs', `${ok.job_id}.png`);
  assert.ok(existsSync(file));
  clock += 24 * 3600 * 1000 - 1;
  await t.app.retention.sweep();
  assert.equal((await t.app.inject({ url: `/v1/jobs/${ok.job_id}` })).statusCode, 200);
  assert.equal((await t.app.inject({ url: ok.url })).statusCode, 200);
  assert.equal((await t.app.inject({ url: `/v1/jobs/${bad.job_id}` })).statusCode, 500);
  clock += 1;
  await t.app.retention.sweep();
  assert.equal((await t.app.inject({ url: `/v1/jobs/${ok.job_id}` })).statusCode, 404);
  assert.equal((await t.app.inject({ url: ok.url })).statusCode, 404);
  assert.equal(existsSync(file), false);
  assert.equal((await t.app.inject({ url: `/v1/jobs/${bad.job_id}` })).statusCode, 404);
});

test("retention counts from the output's writing: a frame that waited behind another job for longer than twice RETENTION_MS is kept, ends ready and downloads", async () => {
  // on the injected clock: the sweep runs at the instant that matters instead of the test waiting for it
  const retentionMs = 4_000;
  let clock = Date.now();
  const { t, fake } = await fresh({ retentionMs }, () => clock);
  const hold = gate();
  fake.behaviour = (job) => (job.params.width === 99 ? hold.promise : undefined);
  try {
    assert.equal((await post(t.app, '/v1/frame', { source: SRC, params: { width: 99 } })).statusCode, 202);
    await until('the first job renders', () => fake.calls.length === 1);
    const waiting = (await post(t.app, '/v1/frame', { source: SRC })).json();
    clock += 2 * retentionMs + 1_000;
    await t.app.retention.sweep();
    const still = await t.app.inject({ url: `/v1/jobs/${waiting.job_id}` });
    assert.deepEqual([still.statusCode, still.json().status], [200, 'pending'], 'nothing of a waiting job expires');
    hold.open();
    const done = (await waitJob(t.app, waiting.job_id)).json();
    assert.equal(done.status, 'ready', JSON.stringify(done));
    assert.ok(done.completed_at - done.created_at > 2 * retentionMs, JSON.stringify(done));
    await t.app.retention.sweep();
    const file = await t.app.inject({ url: done.url });
    assert.equal(file.statusCode, 200);
    assert.deepEqual([...file.rawPayload.subarray(0, 8)], PNG_SIGNATURE);
  } finally {
    hold.open();
  }
});

test('retention across a restart: an output that ran out while the service was down is gone at its start, job and file', async () => {
  // the service's own data directory, kept across its two lives (startApp's close removes only its scratch one)
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-retention-'));
  let clock = Date.now();
  let second: TestApp | undefined;
  try {
    const first = await startApp({ renderer: new FakeRenderer(), now: () => clock, config: { dataDir } });
    const done = (await runJob(first.app, '/v1/frame', { source: SRC })).json();
    await first.close();
    assert.equal(done.status, 'ready', JSON.stringify(done));
    const file = join(dataDir, 'outputs', `${done.job_id}.png`);
    assert.ok(existsSync(file));
    // the day passes while nothing runs; the next start sweeps before it answers
    clock = done.completed_at + 24 * 3600_000;
    second = await startApp({ renderer: new FakeRenderer(), now: () => clock, config: { dataDir } });
    const job = await second.app.inject({ url: `/v1/jobs/${done.job_id}` });
    assert.equal(job.statusCode, 404, job.body);
    assert.equal(job.json().error, 'not_found');
    assert.equal((await second.app.inject({ url: done.url })).statusCode, 404);
    assert.equal(existsSync(file), false);
  } finally {
    await second?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('closing the service interrupts the rendering job (error, saying so) and leaves waiting jobs pending', async () => {
  const store = new MemoryJobStore();
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake, store });
  let started!: () => void;
  const inside = new Promise<void>((r) => (started = r));
  fake.behaviour = async () => {
    started();
    await new Promise(() => {}); // never finishes and ignores the abort: closing must not wait for it
  };
  const a = (await post(t.app, '/v1/render', { source: SRC })).json().job_id;
  const b = (await post(t.app, '/v1/render', { source: SRC })).json().job_id;
  await inside;
  const t0 = Date.now();
  await t.close();
  assert.ok(Date.now() - t0 < 5000);
  const ra = await store.get(a);
  assert.equal(ra?.status, 'error');
  assert.equal(ra?.message, 'render interrupted: the service stopped while this job was rendering');
  assert.equal(ra?.code, 'interrupted');
  assert.equal((await store.get(b))?.status, 'pending');
  assert.equal(fake.calls.length, 1);
});
