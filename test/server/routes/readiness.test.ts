// GET /readyz: 503 with the reason while the renderer warms up, while the disk is full and once a shutdown has begun;
// 200 otherwise. /healthz (liveness) stays as the contract says. Job POSTs are taken while starting and wait in the
// queue until the renderer is warm.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../../src/server/app.js';
import { defaultConfig } from '../../../src/config/settings.js';
import { embeddedJobs, FakeRenderer, gate, silentLog, startApp, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close().catch(() => {});
});

test('while the renderer warms up: /readyz 503 starting, /healthz ok, a job POST 202 pending with its place; it renders once warm', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-ready-'));
  const warming = gate();
  const renderer = new FakeRenderer();
  renderer.start = async () => {
    await warming.promise;
    renderer.started = true;
  };
  const app = await buildApp({
    config: { ...defaultConfig(), dataDir, logLevel: 'silent' },
    renderer,
    logger: silentLog,
    warmLater: true,
  });
  apps.push({ app, dataDir, close: async () => (await app.close(), rm(dataDir, { recursive: true, force: true })) });
  await app.ready();
  const warm = app.warmUp();

  const ready = await app.inject({ url: '/readyz' });
  assert.equal(ready.statusCode, 503);
  assert.equal(ready.json().code, 'starting');
  assert.ok(Number(ready.headers['retry-after']) >= 1);
  assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'alive while not yet ready');
  const first = await post(app, '/v1/frame', { source: SRC });
  assert.equal(first.statusCode, 202, first.body);
  const second = await post(app, '/v1/frame', { source: SRC });
  assert.equal(second.statusCode, 202, second.body);
  const view = (await app.inject({ url: `/v1/jobs/${second.json().job_id}` })).json();
  assert.equal(view.status, 'pending');
  assert.equal(view.queue_position, 2, 'waiting behind the first job, nothing rendering yet');
  assert.equal(renderer.calls.length, 0, 'nothing renders before the renderer is warm');
  assert.equal((await app.inject({ url: '/readyz' })).json().code, 'starting', 'still starting with jobs queued');

  warming.open();
  await warm;
  const now = await app.inject({ url: '/readyz' });
  assert.equal(now.statusCode, 200);
  assert.equal(now.body, 'ok\n');
  for (const r of [first, second]) assert.equal((await waitJob(app, r.json().job_id)).json().status, 'ready');
  assert.equal(renderer.calls.length, 2);
});

test('once a shutdown begins: /readyz 503 shutting_down and new POSTs 503 at once; the job in hand finishes', async () => {
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake });
  apps.push(t);
  assert.equal((await t.app.inject({ url: '/readyz' })).statusCode, 200);
  const hold = gate();
  const started = gate();
  fake.behaviour = async () => {
    started.open();
    await hold.promise;
  };
  const id = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  await started.promise;
  const stopping = embeddedJobs(t.app).shutdown(60_000);

  const ready = await t.app.inject({ url: '/readyz' });
  assert.equal(ready.statusCode, 503);
  assert.equal(ready.json().code, 'shutting_down');
  const refused = await post(t.app, '/v1/frame', { source: SRC });
  assert.equal(refused.statusCode, 503);
  assert.equal(refused.json().code, 'shutting_down');
  assert.ok(Number(refused.headers['retry-after']) >= 1);
  assert.equal((await t.app.inject({ url: `/v1/jobs/${id}` })).json().status, 'pending', 'polls still answered');

  hold.open();
  await stopping;
  assert.equal((await t.app.inject({ url: `/v1/jobs/${id}` })).json().status, 'ready');
  assert.equal(fake.calls.length, 1);
});

function tryMount(dir: string, size: string): boolean {
  if (process.getuid?.() !== 0) return false;
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status === 0;
}
const probeDir = mkdtempSync(join(tmpdir(), 'cmrender-mount-probe-'));
const canMount = tryMount(probeDir, '1m') && spawnSync('umount', [probeDir]).status === 0;
rmSync(probeDir, { recursive: true, force: true });

test(
  'a full disk: /readyz 503 storage_full; once space returns, 200 again without a restart',
  { skip: canMount ? false : 'needs root to mount a tmpfs (mount -t tmpfs)' },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cmrender-ready-disk-'));
    assert.ok(tryMount(dir, '8m'));
    const t = await startApp({ renderer: new FakeRenderer(), config: { dataDir: dir, diskMinFreeBytes: 256 * 1024 } });
    try {
      assert.equal((await t.app.inject({ url: '/readyz' })).statusCode, 200);
      const filler = join(dir, 'filler');
      const fh = await open(filler, 'w');
      try {
        for (;;) await fh.write(Buffer.alloc(64 * 1024, 1));
      } catch (e) {
        assert.equal((e as NodeJS.ErrnoException).code, 'ENOSPC');
      } finally {
        await fh.close();
      }
      embeddedJobs(t.app)['o'].disk?.forget();
      const full = await t.app.inject({ url: '/readyz' });
      assert.equal(full.statusCode, 503);
      assert.equal(full.json().code, 'storage_full');
      assert.match(full.json().error, /disk holding the service's data is full/);

      await rm(filler);
      embeddedJobs(t.app)['o'].disk?.forget();
      assert.equal((await t.app.inject({ url: '/readyz' })).statusCode, 200);
    } finally {
      await t.close().catch(() => {});
      spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('an event loop held past READY_MAX_EVENT_LOOP_DELAY_MS: /readyz 503 overloaded while polls still answer', async () => {
  const t = await startApp({ renderer: new FakeRenderer(), config: { readyMaxEventLoopDelayMs: 200 } });
  apps.push(t);
  // the measure (metrics/event-loop-delay.ts) is the mean delay over a sample (a second of 10 ms ticks): one long hold late in a
  // sample is averaged with the ticks before it and can stay under the limit (seen: a 1.5 s hold read as 200). So the
  // loop is held in 600 ms blocks, each well past the limit, with one turn between them for the sampler and for
  // /readyz, until a whole sample is held (a busy block: the fact under test, not a wait); bounded
  let r = await t.app.inject({ url: '/readyz' });
  const giveUp = Date.now() + 20_000;
  while (r.statusCode === 200 && Date.now() < giveUp) {
    const holdEnd = Date.now() + 600;
    while (Date.now() < holdEnd);
    await new Promise((resolve) => setImmediate(resolve));
    r = await t.app.inject({ url: '/readyz' });
  }
  assert.equal(r.statusCode, 503);
  assert.equal(r.json().code, 'overloaded');
  assert.match(r.json().error, /event loop delay (over )?\d+ ms, limit 200 ms/);
  assert.equal((await t.app.inject({ url: '/healthz' })).statusCode, 200, 'liveness is not readiness');
});
