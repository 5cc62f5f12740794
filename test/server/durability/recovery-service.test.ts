// Recovery through the job service (in-process, fake renderer): a journal left by a stopped service is replayed at
// start; waiting jobs render again in their order, the one that was rendering once more, the twice-interrupted one
// ends in error; a checkpointing shutdown leaves the job in hand pending; records keep their stored times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, FakeRenderer, gate } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { until } from '../../helpers/until.js';
import { JournalJobStore } from '../../../src/server/jobs/store/journal.js';
import { INTERRUPTED_MESSAGE, type RecoverableRecord } from '../../../src/server/durability/recovery.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
function rec(n: number, extra: Partial<RecoverableRecord> = {}): RecoverableRecord {
  return {
    job_id: id(n),
    kind: 'frame',
    status: 'pending',
    created_at: 1_000_000 + n,
    source: `scene ${n}`,
    params: { width: 16, height: 16 },
    assets: {},
    ...extra,
  };
}

test('a journal left by a stopped service: jobs render again in created_at order, the twice-interrupted one ends in error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cmrender-recover-'));
  try {
    const j = await JournalJobStore.open({ dir });
    const now = Date.now();
    await j.put(rec(5, { created_at: now - 5000 }));
    await j.put(rec(2, { created_at: now - 8000, started_at: now - 7000, progress: 0.5 })); // was rendering
    await j.put(rec(9, { created_at: now - 9000, started_at: now - 8500, interrupted: 1 })); // rendering again when it stopped again
    await j.put(rec(3, { created_at: now - 6000 }));
    await j.put(
      rec(7, {
        created_at: now - 10_000,
        status: 'ready',
        completed_at: now - 9000,
        output: {
          filename: `${id(7)}.png`,
          mime: 'image/png',
          bytes: 3,
          sha256: 'x',
          width: 16,
          height: 16,
          written_at: now - 9000,
        },
      }),
    );
    await j.close();
    mkdirSync(join(dir, 'outputs'));
    writeFileSync(join(dir, 'outputs', `${id(7)}.png`), 'png');
    writeFileSync(join(dir, 'outputs', `${id(2)}.png.tmp`), 'partial');

    const r = new FakeRenderer();
    const t = await startApp({ renderer: r, config: { dataDir: dir } });
    try {
      for (const n of [2, 3, 5]) assert.equal((await waitJob(t.app, id(n))).json().status, 'ready', `job ${n}`);
      assert.deepEqual(
        r.calls.map((c) => c.source),
        ['scene 2', 'scene 3', 'scene 5'],
        'rendered again, oldest first',
      );
      const e = await t.app.inject({ url: `/v1/jobs/${id(9)}` });
      assert.equal(e.statusCode, 500);
      assert.equal(e.json().message, INTERRUPTED_MESSAGE);
      assert.equal(e.json().code, 'interrupted');
      assert.equal(e.json().created_at, now - 9000);
      const ready = await t.app.inject({ url: `/v1/jobs/${id(7)}` });
      assert.equal(ready.statusCode, 200);
      assert.equal(ready.json().completed_at, now - 9000);
      assert.ok(!existsSync(join(dir, 'outputs', `${id(2)}.png.tmp`)), 'the partial file of the cut render is gone');
      // a new job queues behind the recovered ones and runs
      const fresh = await post(t.app, '/v1/frame', { source: 'scene new' });
      assert.equal((await waitJob(t.app, fresh.json().job_id)).json().status, 'ready');
    } finally {
      await t.close();
    }
    // and all of it is in the journal for the next start
    const again = await JournalJobStore.open({ dir });
    const all = new Map((await again.list()).map((x) => [x.job_id, x]));
    assert.equal(all.size, 6);
    assert.equal(all.get(id(2))!.status, 'ready');
    assert.equal((all.get(id(2)) as RecoverableRecord).interrupted, 1);
    assert.equal(all.get(id(9))!.status, 'error');
    await again.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('shutdown(grace): waiting jobs stay pending; the job in hand finishes within the grace, or is checkpointed past it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cmrender-shutdown-'));
  try {
    const r = new FakeRenderer();
    const g = gate();
    r.behaviour = async (job, hooks) => {
      if (job.source === 'slow')
        await Promise.race([
          g.promise,
          new Promise((_, rej) => hooks.signal.addEventListener('abort', () => rej(new Error('aborted')))),
        ]);
    };
    const t = await startApp({ renderer: r, config: { dataDir: dir } });
    const a = (await post(t.app, '/v1/frame', { source: 'slow' })).json().job_id;
    const b = (await post(t.app, '/v1/frame', { source: 'waits' })).json().job_id;
    await until('the slow job in hand', () => r.calls.some((c) => c.source === 'slow'), 5_000);
    const t0 = Date.now();
    await t.app.jobs.shutdown(300);
    assert.ok(Date.now() - t0 < 2000);
    const refused = await post(t.app, '/v1/frame', { source: 'late' });
    assert.equal(refused.statusCode, 503);
    assert.equal(refused.json().code, 'shutting_down');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    await t.close();
    g.open();
    const j = await JournalJobStore.open({ dir });
    const ra = (await j.get(a))!;
    assert.equal(ra.status, 'pending');
    assert.equal(ra.started_at, undefined, 'checkpointed: as if it had never started');
    assert.equal((ra as RecoverableRecord).interrupted, undefined, 'a shutdown is not an interruption');
    assert.equal((await j.get(b))!.status, 'pending');
    await j.close();

    // next start: both render, in order
    const r2 = new FakeRenderer();
    const t2 = await startApp({ renderer: r2, config: { dataDir: dir } });
    try {
      assert.equal((await waitJob(t2.app, a)).json().status, 'ready');
      assert.equal((await waitJob(t2.app, b)).json().status, 'ready');
      assert.deepEqual(
        r2.calls.map((c) => c.source),
        ['slow', 'waits'],
      );
      // a job in hand that finishes within the grace is simply ready
      const r3 = (await post(t2.app, '/v1/frame', { source: 'quick' })).json().job_id;
      // in hand before the shutdown (one posted and not yet taken would stay pending, as the waiting ones above)
      await until('the quick job in hand', () => r2.calls.some((c) => c.source === 'quick'), 5_000);
      await t2.app.jobs.shutdown(5000);
      assert.equal((await t2.app.inject({ url: `/v1/jobs/${r3}` })).json().status, 'ready');
    } finally {
      await t2.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('chunk segments a stopped service left are gone at the next start (a recovered video renders its chunks again)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cmrender-recover-'));
  try {
    const left = join(dir, 'segments', id(4));
    mkdirSync(left, { recursive: true });
    writeFileSync(join(left, '0000.ts'), 'a cut segment');
    const t = await startApp({ renderer: new FakeRenderer(), config: { dataDir: dir } });
    try {
      assert.equal(existsSync(left), false, 'the segments of the last run are gone');
      assert.equal(existsSync(join(dir, 'segments')), true, 'the area itself stays');
    } finally {
      await t.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
