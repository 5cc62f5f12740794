// The JobStore port's conformance suite (src/server/jobs/store/port.ts): the same cases against every store the job
// service runs on, the memory store and the journal (each held by one process, through locally()) and Redis
// (RedisJobStore, its checks as scripts on a real redis-server), as queue-conformance.test.ts does for the queue.
// Each case is what the port promises: records copied in and out, an ended record kept without its source, the one
// start and the one end of a job that never race, the MAX_ENDED_JOBS count, and (for the two durable stores) the
// records a reopened store reads back.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { TestRedis } from '../../../helpers/redis.js';
import { RedisJobStore } from '../../../../src/server/jobs/store/redis.js';
import { connect } from '../../../../src/server/redis/connection.js';
import { JournalJobStore } from '../../../../src/server/jobs/store/journal.js';
import type { JobRecord, LifecycleStore } from '../../../../src/server/jobs/store/port.js';
import { locally, MemoryJobStore } from '../../../../src/server/jobs/store/memory.js';

/** One store under test, and (for a durable one) the same records as a new process opening it would read them. */
interface Subject {
  store: LifecycleStore;
  reopen?: () => Promise<LifecycleStore>;
  close(): Promise<void>;
}

let redis: TestRedis;
let conn: Redis;
let dir: string;
before(async () => {
  redis = await TestRedis.start();
  conn = connect(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'cmr-store-conformance-'));
});
after(async () => {
  conn?.disconnect();
  await redis?.close();
  await rm(dir, { recursive: true, force: true });
});

let opened = 0;
const SUBJECTS: [string, () => Promise<Subject>][] = [
  ['memory', async () => ({ store: locally(new MemoryJobStore()), close: async () => {} })],
  [
    'journal',
    async () => {
      const at = join(dir, `journal-${++opened}`);
      let journal = await JournalJobStore.open({ dir: at });
      return {
        store: locally(journal),
        async reopen() {
          await journal.close();
          journal = await JournalJobStore.open({ dir: at });
          return locally(journal);
        },
        close: () => journal.close(),
      };
    },
  ],
  [
    'redis',
    async () => {
      const others: Redis[] = [];
      return {
        store: new RedisJobStore(conn, 60_000),
        async reopen() {
          const c = connect(redis.url);
          others.push(c);
          return new RedisJobStore(c, 60_000);
        },
        close: async () => {
          for (const c of others) c.disconnect();
        },
      };
    },
  ],
];

let n = 0;
const SOURCE = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const pending = (over: Partial<JobRecord> = {}): JobRecord => ({
  job_id: `conf-${process.pid}-${++n}`,
  kind: 'frame',
  status: 'pending',
  created_at: 1_800_000_000_000 + n,
  source: SOURCE,
  params: { width: 64 },
  assets: { '/img/a.png': 'asset_00' },
  ...over,
});
/** ended now plus `at` ms: an ended record lives RETENTION_MS from its end, so its time must be a real one */
const ended = (rec: JobRecord, at: number): JobRecord => ({
  ...rec,
  status: 'error',
  code: 'cancelled',
  message: 'cancelled',
  completed_at: Date.now() + at,
});

for (const [name, make] of SUBJECTS) {
  describe(`JobStore: ${name}`, () => {
    let s: Subject;
    before(async () => {
      s = await make();
    });
    after(() => s.close());

    test('a record put is got and listed as it was; changing the copy changes nothing stored; delete removes it', async () => {
      const rec = pending();
      await s.store.put(rec);
      const got = (await s.store.get(rec.job_id))!;
      assert.deepEqual(got, rec);
      got.params.width = 999;
      rec.assets['/img/b.png'] = 'asset_01';
      assert.deepEqual((await s.store.get(rec.job_id))!.params, { width: 64 });
      assert.deepEqual(Object.keys((await s.store.get(rec.job_id))!.assets), ['/img/a.png']);
      assert.ok((await s.store.list()).some((r) => r.job_id === rec.job_id));
      await s.store.delete(rec.job_id);
      assert.equal(await s.store.get(rec.job_id), undefined);
      assert.ok(!(await s.store.list()).some((r) => r.job_id === rec.job_id));
      assert.equal(await s.store.get('no-such-job'), undefined);
    });

    test('an ended record is kept without its source, with the source SHA-256 instead', async () => {
      const rec = pending();
      await s.store.put(rec);
      assert.equal((await s.store.get(rec.job_id))!.source, SOURCE, 'a pending record keeps its source');
      assert.equal(await s.store.endIfPending(ended(rec, 5)), true);
      const got = (await s.store.get(rec.job_id))!;
      assert.equal(got.source, '');
      assert.equal(got.source_sha256, createHash('sha256').update(SOURCE).digest('hex'));
      assert.equal(got.status, 'error');
    });

    test('markStarted starts a pending record (on the caller copy too) and refuses an ended one', async () => {
      const rec = pending();
      await s.store.put(rec);
      assert.equal(await s.store.markStarted(rec, 1234), true);
      assert.equal(rec.started_at, 1234);
      assert.equal((await s.store.get(rec.job_id))!.started_at, 1234);
      const gone = pending();
      await s.store.put(gone);
      const read = (await s.store.get(gone.job_id))!;
      assert.equal(await s.store.endIfPending(ended(gone, 9)), true);
      assert.equal(await s.store.markStarted(read, 99), false);
      assert.equal(read.started_at, undefined);
      assert.equal((await s.store.get(gone.job_id))!.started_at, undefined);
    });

    test('of two ends racing for one job exactly one is written; a gone record ends nothing', async () => {
      for (let i = 0; i < 5; i++) {
        const rec = pending();
        await s.store.put(rec);
        const ready: JobRecord = { ...rec, status: 'ready', completed_at: Date.now() };
        const results = await Promise.all([s.store.endIfPending(ended(rec, 7)), s.store.endIfPending(ready)]);
        assert.equal(results.filter(Boolean).length, 1, JSON.stringify(results));
        const stored = (await s.store.get(rec.job_id))!;
        assert.equal(stored.status, results[0] ? 'error' : 'ready');
      }
      assert.equal(await s.store.endIfPending(ended(pending(), 1)), false);
    });

    test('keepEnded counts ended jobs against the cap and names the oldest past it', async () => {
      const ids = [pending(), pending(), pending()].map((r) => r.job_id);
      const cap = 2;
      // other cases' ended jobs may count too (the Redis count is the store's): a cap past them all, then one over
      const before = await s.store.keepEnded('conf-warm', 1, 1_000_000);
      assert.deepEqual(before, []);
      const all: string[] = [];
      for (const [i, id] of ids.entries()) all.push(...(await s.store.keepEnded(id, 100 + i, 1_000_000)));
      assert.deepEqual(all, []);
      const past = await s.store.keepEnded(ids[2]!, 102, cap);
      assert.ok(past.includes('conf-warm') && past.includes(ids[0]!), JSON.stringify(past));
      assert.ok(!past.includes(ids[2]!) && !past.includes(ids[1]!), JSON.stringify(past));
    });

    // the memory store keeps nothing past its process, by design: the durable stores only
    if (name !== 'memory')
      test('a reopened durable store reads back every record, pending and ended, as written', async () => {
        const a = pending();
        const b = pending();
        await s.store.put(a);
        await s.store.put(b);
        await s.store.markStarted(b, 55);
        await s.store.endIfPending(ended(b, 66));
        const again = await s.reopen!();
        assert.deepEqual(await again.get(a.job_id), a);
        const gotB = (await again.get(b.job_id))!;
        assert.equal(gotB.status, 'error');
        assert.equal(gotB.started_at, 55);
        assert.equal(gotB.completed_at, (await s.store.get(b.job_id))!.completed_at);
        s.store = again;
      });
  });
}
