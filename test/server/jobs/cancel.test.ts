// DELETE /v1/jobs/{id}: a waiting or rendering job ends in error with code `cancelled` (and stays so across a
// restart); an ended job is 409 job_ended; an unknown one 404. A rendering job's render is stopped through its signal,
// embedded and in Redis mode, where the cancel comes from another process and the render is told (the record is not
// polled: the fake reports no progress, so nothing but the telling can stop it). HTTP shape with the fake renderer;
// the real renderer's side (page and encoder freed, no partial file) is in cancel-render.test.ts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, FakeRenderer, gate, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { TestRedis } from '../../helpers/redis.js';
import { until } from '../../helpers/until.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});

/** A fake whose render waits for the gate, or for its abort signal (like the real renderer). */
function blockingFake() {
  const fake = new FakeRenderer();
  const g = gate();
  const started = gate();
  fake.behaviour = (_job, hooks) =>
    new Promise<void>((resolve, reject) => {
      started.open();
      hooks.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      void g.promise.then(resolve);
    });
  return { fake, g, started };
}

test('cancelling a waiting job: 200 with the error view, code cancelled; it never renders; GET answers 500', async () => {
  const { fake, g, started } = blockingFake();
  const t = await startApp({ renderer: fake });
  apps.push(t);
  const first = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  const second = (await post(t.app, '/v1/render', { source: SRC })).json().job_id;
  const third = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  await started.promise;
  const r = await t.app.inject({ method: 'DELETE', url: `/v1/jobs/${second}` });
  assert.equal(r.statusCode, 200);
  const v = r.json();
  assert.deepEqual([v.job_id, v.kind, v.status, v.code], [second, 'video', 'error', 'cancelled']);
  assert.match(v.message, /cancelled/);
  assert.equal(typeof v.completed_at, 'number');
  // the job behind it moved up
  assert.equal((await t.app.inject({ url: `/v1/jobs/${third}` })).json().queue_position, 1);
  g.open();
  assert.equal((await waitJob(t.app, first)).json().status, 'ready');
  assert.equal((await waitJob(t.app, third)).json().status, 'ready');
  assert.deepEqual(
    fake.calls.map((c) => c.id),
    [first, third],
    'the cancelled job never reached the renderer',
  );
  const again = await t.app.inject({ url: `/v1/jobs/${second}` });
  assert.equal(again.statusCode, 500);
  assert.equal(again.json().code, 'cancelled');
});

test('cancelling a rendering job aborts its render through the signal; the next job starts', async () => {
  const { fake, started } = blockingFake();
  const t = await startApp({ renderer: fake });
  apps.push(t);
  const first = (await post(t.app, '/v1/render', { source: SRC })).json().job_id;
  const second = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  await started.promise;
  const r = await t.app.inject({ method: 'DELETE', url: `/v1/jobs/${first}` });
  assert.equal(r.statusCode, 200);
  assert.deepEqual([r.json().status, r.json().code], ['error', 'cancelled']);
  fake.behaviour = null;
  assert.equal((await waitJob(t.app, second)).json().status, 'ready');
  assert.ok(!readdirSync(join(t.dataDir, 'outputs')).some((f) => f.startsWith(first)), 'no file of the cancelled job');
});

test('Redis mode: a cancel on an API process stops the render another process is running; the next job renders there', async () => {
  const redis = await TestRedis.start();
  try {
    const { fake, started } = blockingFake();
    const stops: string[] = [];
    const blocking = fake.behaviour!;
    fake.behaviour = (job, hooks) => {
      hooks.signal.addEventListener('abort', () => stops.push(job.id), { once: true });
      return blocking(job, hooks);
    };
    const api = await startApp({ renderer: new FakeRenderer(), config: { redisUrl: redis.url, renderConcurrency: 0 } });
    apps.push(api);
    const worker = await startApp({ renderer: fake, config: { redisUrl: redis.url, renderConcurrency: 1 } });
    apps.push(worker);
    const first = (await post(api.app, '/v1/render', { source: SRC })).json().job_id;
    await started.promise;
    const r = await api.app.inject({ method: 'DELETE', url: `/v1/jobs/${first}` });
    assert.deepEqual([r.statusCode, r.json().status, r.json().code], [200, 'error', 'cancelled']);
    await until('the render in the other process is stopped', () => stops.includes(first));
    fake.behaviour = null;
    const second = (await post(api.app, '/v1/frame', { source: SRC })).json().job_id;
    assert.equal((await waitJob(api.app, second)).json().status, 'ready');
    assert.deepEqual(stops, [first], 'the cancelled render alone was stopped');
    assert.equal((await waitJob(worker.app, first)).json().code, 'cancelled', 'it stays cancelled');
  } finally {
    for (const a of apps.splice(-2)) await a.close();
    await redis.close();
  }
});

test('an ended job is 409 job_ended and unchanged; an unknown job 404 not_found', async () => {
  const t = await startApp({ renderer: new FakeRenderer() });
  apps.push(t);
  const id = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  assert.equal((await waitJob(t.app, id)).json().status, 'ready');
  const r = await t.app.inject({ method: 'DELETE', url: `/v1/jobs/${id}` });
  assert.equal(r.statusCode, 409);
  assert.equal(r.json().code, 'job_ended');
  assert.equal(typeof r.json().error, 'string');
  assert.equal((await t.app.inject({ url: `/v1/jobs/${id}` })).json().status, 'ready');
  // a cancelled job has ended too
  const { fake, started } = blockingFake();
  const t2 = await startApp({ renderer: fake });
  apps.push(t2);
  const c = (await post(t2.app, '/v1/frame', { source: SRC })).json().job_id;
  await started.promise;
  assert.equal((await t2.app.inject({ method: 'DELETE', url: `/v1/jobs/${c}` })).statusCode, 200);
  assert.equal((await t2.app.inject({ method: 'DELETE', url: `/v1/jobs/${c}` })).statusCode, 409);
  for (const u of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    const n = await t.app.inject({ method: 'DELETE', url: `/v1/jobs/${u}` });
    assert.equal(n.statusCode, 404);
    const { message, ...fixed } = n.json() as { message?: string };
    assert.deepEqual(fixed, { error: 'not_found', code: 'not_found' });
    if (u.startsWith('0000'))
      assert.match(message ?? '', /^job 0{8}-.* is not here: jobs and their outputs are kept 24 hours/);
  }
});

test('a cancel is journalled: after a restart the job is still error/cancelled and is not rendered again', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-cancel-'));
  try {
    const { fake, started } = blockingFake();
    const a = await startApp({ renderer: fake, config: { dataDir } });
    const first = (await post(a.app, '/v1/frame', { source: SRC })).json().job_id;
    const waiting = (await post(a.app, '/v1/frame', { source: SRC })).json().job_id;
    await started.promise;
    assert.equal((await a.app.inject({ method: 'DELETE', url: `/v1/jobs/${waiting}` })).statusCode, 200);
    await a.close();
    const fake2 = new FakeRenderer();
    const b = await startApp({ renderer: fake2, config: { dataDir } });
    apps.push(b);
    const r = await b.app.inject({ url: `/v1/jobs/${waiting}` });
    assert.equal(r.statusCode, 500);
    assert.equal(r.json().code, 'cancelled');
    await waitJob(b.app, first);
    assert.ok(!fake2.calls.some((c) => c.id === waiting), 'the cancelled job is not queued again');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
