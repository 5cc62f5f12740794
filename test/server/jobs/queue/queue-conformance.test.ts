// The queue port's conformance suite: the same cases against both adapters, the local queue (one process, its store
// in memory, real output files in a temporary DATA_DIR) and the BullMQ queue (a real redis-server), as BullMQ runs its
// own test files per backend. Each case is what the port (src/server/jobs/queue/port.ts) promises the job service:
// MAX_QUEUED_JOBS counted exactly, the fair order (shortest estimated work first, aged by waiting), a chunked video's
// chunks then its join, place in line, progress and load, withdraw of a waiting and of an in-hand item (in this
// process or, told by the queue, in another), a shutdown's
// hand-back and a close's interruption, and that what a stopped process leaves is taken by the next one. The items
// are run by a runner of the test's own (the port's consumer), which records what it was handed and how it was stopped.
import { describe, test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { TestRedis } from '../../../helpers/redis.js';
import { silentLog } from '../../../helpers/app.js';
import { until } from '../../../helpers/until.js';
import { defaultConfig } from '../../../../src/config/settings.js';
import { dataStores } from '../../../../src/server/storage/data-stores.js';
import { MemoryJobStore, locally } from '../../../../src/server/jobs/store/memory.js';
import { RedisJobStore } from '../../../../src/server/jobs/store/redis.js';
import type { JobRecord, LifecycleStore } from '../../../../src/server/jobs/store/port.js';
import { LocalQueue } from '../../../../src/server/jobs/queue/local.js';
import { BullmqQueue } from '../../../../src/server/jobs/queue/bullmq.js';
import { connect } from '../../../../src/server/redis/connection.js';
import type { ItemOutcome, JobQueue, RunItem, StopReason } from '../../../../src/server/jobs/queue/port.js';
import type { ChunkResult, WorkItem } from '../../../../src/server/jobs/work-items.js';
import { JobRecords } from '../../../../src/server/jobs/job-records.js';
import { LIMITS } from '../../../../src/contract/limits.js';

/** One adapter under test: its shared store, and "processes" (queues) opened on it, as services.ts composes them. */
interface Adapter {
  store: LifecycleStore;
  /** a queue over the shared store and work, as a process would open it (the local queue recovers what was left) */
  open(concurrency?: number): Promise<JobQueue>;
  /** back to no records and no work (between cases) */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** The test's clock: created_at, the local line's waiting time and BullMQ's priority base all read it. */
let clock = 1_800_000_000_000;
const now = () => clock;

async function localAdapter(): Promise<Adapter> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cmr-conformance-'));
  const config = { ...defaultConfig(), dataDir };
  let plain = new MemoryJobStore();
  let store = locally(plain);
  const opened: LocalQueue[] = [];
  const a: Adapter = {
    get store() {
      return store;
    },
    async open(concurrency = 1) {
      const { outputs } = dataStores(config, store, silentLog, now);
      await outputs.init();
      const q = new LocalQueue({ store, outputs, concurrency, log: silentLog, now });
      // what services.ts does before the service starts: the last process's pending jobs queued again
      await q.recover();
      opened.push(q);
      return q;
    },
    async reset() {
      for (const q of opened.splice(0)) await q.close();
      plain = new MemoryJobStore();
      store = locally(plain);
    },
    async close() {
      await a.reset();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return a;
}

async function bullmqAdapter(): Promise<Adapter> {
  const redis = await TestRedis.start();
  const base = connect(redis.url);
  const store = new RedisJobStore(base, 60_000, now);
  const opened: { q: BullmqQueue; conn: Redis }[] = [];
  const a: Adapter = {
    store,
    async open(concurrency = 1) {
      const conn = connect(redis.url);
      const q = new BullmqQueue({
        connection: conn,
        redisUrl: redis.url,
        store: new RedisJobStore(conn, 60_000, now),
        concurrency,
        stalledIntervalMs: 30_000,
        log: silentLog,
        now,
      });
      opened.push({ q, conn });
      return q;
    },
    async reset() {
      for (const { q, conn } of opened.splice(0)) {
        await q.close();
        conn.disconnect();
      }
      await base.flushall();
    },
    async close() {
      await a.reset();
      base.disconnect();
      await redis.close();
    },
  };
  return a;
}

const SOURCE = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';

function record(id: string, estimate: number, extra: Partial<JobRecord> = {}): JobRecord {
  return {
    job_id: id,
    kind: 'frame',
    status: 'pending',
    created_at: clock,
    source: SOURCE,
    params: {},
    assets: {},
    estimate_s: estimate,
    ...extra,
  };
}

/** A video of `frames` frames: more than one chunk's worth is queued as chunks plus a join. */
const video = (id: string, estimate: number, frames: number) => record(id, estimate, { kind: 'video', frames });

/** Admits and queues a job as the job service does: counted, stored, then queued. */
async function submit(a: Adapter, q: JobQueue, rec: JobRecord): Promise<void> {
  assert.equal(await q.admit(rec.job_id, Infinity), true);
  await a.store.put(rec);
  await q.enqueue(rec);
}

const name = (item: WorkItem) => (item.part === 'chunk' ? `${item.id}#${item.index}` : `${item.id}:${item.part}`);

/**
 * The test's runner, standing where run-item.ts does: it marks the record started, then either ends the item at once
 * (the record ready; a chunk hands on its result) or, for the ids in `hold`, waits for its stop and answers it as
 * run-item does (`ended` stopped, `hand_back` handed back, `interrupt` the record ended in error).
 */
function runner(store: LifecycleStore, hold: Set<string> = new Set()) {
  const taken: string[] = [];
  const stops: Record<string, StopReason | undefined> = {};
  const joins: Record<string, ChunkResult[]> = {};
  const settled: string[] = [];
  const run: RunItem = async (item, h): Promise<ItemOutcome> => {
    taken.push(name(item));
    const rec = await store.get(item.id);
    if (!rec || rec.status !== 'pending') return { status: 'stopped' };
    if (rec.started_at === undefined) await store.markStarted(rec, clock);
    if (hold.has(item.id)) {
      h.report(0.5, item.part === 'chunk' ? 1 : 0);
      if (!h.signal.aborted) await new Promise((r) => h.signal.addEventListener('abort', r, { once: true }));
      const why = h.stopReason();
      stops[item.id] = why;
      settled.push(item.id);
      if (why === 'hand_back') return { status: 'handed_back' };
      if (why === 'interrupt') {
        await new JobRecords(store, now).fail(item.id, { message: 'render interrupted', code: 'interrupted' });
        return { status: 'error', message: 'render interrupted' };
      }
      return { status: 'stopped' };
    }
    if (item.part === 'chunk') {
      h.report(1, item.to - item.from);
      const frames = item.to - item.from;
      return { status: 'ready', result: { width: 8, height: 8, runner: '0.0.3', frames, ms: 1, timings: {} } };
    }
    if (item.part === 'join') joins[item.id] = await h.chunkResults();
    await store.endIfPending({ ...rec, status: 'ready', completed_at: clock });
    return { status: 'ready' };
  };
  return { run, taken, stops, joins, settled };
}

const ended = async (store: LifecycleStore, id: string) => (await store.get(id))?.status !== 'pending';

for (const [backend, make] of [
  ['local', localAdapter],
  ['bullmq', bullmqAdapter],
] as const) {
  describe(`the queue port on the ${backend} adapter`, () => {
    let a: Adapter;
    before(async () => {
      a = await make();
    });
    after(async () => {
      await a?.close();
    });
    beforeEach(() => {
      clock += 3_600_000;
    });
    afterEach(async () => {
      await a.reset();
    });

    test(`${backend}: MAX_QUEUED_JOBS is counted exactly at its edge, even when admits race; unadmit frees a place`, async () => {
      const q = await a.open();
      const cap = 3;
      const answers = await Promise.all(Array.from({ length: cap + 2 }, (_, i) => q.admit(`cap-${i}`, cap)));
      assert.equal(answers.filter(Boolean).length, cap, JSON.stringify(answers));
      assert.equal(await q.admitted(), cap);
      assert.equal(await q.admit('one-more', cap), false);
      const admittedId = `cap-${answers.indexOf(true)}`;
      await q.unadmit(admittedId);
      assert.equal(await q.admitted(), cap - 1);
      assert.equal(await q.admit('one-more', cap), true);
      assert.equal(await q.admitted(), cap);
    });

    test(`${backend}: before consume nothing runs; the waiting jobs' places follow the fair order; load counts them`, async () => {
      const q = await a.open();
      await submit(a, q, record('long', 10));
      await submit(a, q, record('short', 1));
      await submit(a, q, record('middle', 5));
      const places: Record<string, number | undefined> = {};
      for (const id of ['long', 'short', 'middle']) places[id] = (await q.live((await a.store.get(id))!)).queuePosition;
      assert.deepEqual(places, { short: 1, middle: 2, long: 3 });
      assert.deepEqual(await q.load(), { waiting: 3, running: 0 });
      const r = runner(a.store);
      await q.consume(r.run);
      await until('every job ended', async () =>
        (await Promise.all(['long', 'short', 'middle'].map((id) => ended(a.store, id)))).every(Boolean),
      );
      assert.deepEqual(r.taken, ['short:whole', 'middle:whole', 'long:whole']);
      await until('the line is empty', async () => (await q.load()).waiting === 0 && (await q.load()).running === 0);
    });

    test(`${backend}: shortest estimated work first, aged by waiting: a long job that waited its advantage goes first`, async () => {
      const q = await a.open();
      // 20 s ago: a job of 10 s; now: one of 5 s and one of 1 s. The old one has waited longer than its extra work.
      clock -= 20_000;
      await submit(a, q, record('old-long', 10));
      clock += 20_000;
      await submit(a, q, record('new-middle', 5));
      await submit(a, q, record('new-short', 1));
      const r = runner(a.store);
      await q.consume(r.run);
      await until('every job ended', async () =>
        (await Promise.all(['old-long', 'new-middle', 'new-short'].map((id) => ended(a.store, id)))).every(Boolean),
      );
      assert.deepEqual(r.taken, ['old-long:whole', 'new-short:whole', 'new-middle:whole']);
    });

    test(`${backend}: a chunked video runs its chunks, then its join with every chunk's result, before a longer job posted behind it`, async () => {
      const q = await a.open();
      const frames = LIMITS.videoChunkFrames * 2 + 5;
      await submit(a, q, video('clip', 3, frames));
      await submit(a, q, record('heavy', 100));
      const r = runner(a.store);
      await q.consume(r.run);
      await until('both jobs ended', async () => (await ended(a.store, 'clip')) && (await ended(a.store, 'heavy')));
      assert.deepEqual(r.taken.slice(0, 3).sort(), ['clip#0', 'clip#1', 'clip#2']);
      assert.deepEqual(r.taken.slice(3), ['clip:join', 'heavy:whole']);
      const results = r.joins.clip ?? [];
      assert.equal(results.length, 3);
      assert.equal(
        results.reduce((n, c) => n + c.frames, 0),
        frames,
        'the join sees each chunk once',
      );
    });

    test(`${backend}: an item's progress reaches live(); a job in hand is out of the line (place 0) and counted running`, async () => {
      const q = await a.open();
      const r = runner(a.store, new Set(['busy']));
      await submit(a, q, record('busy', 1));
      await submit(a, q, record('behind', 2));
      await q.consume(r.run);
      await until(
        'the held job reports progress',
        async () => (await q.live((await a.store.get('busy'))!)).progress === 0.5,
      );
      assert.equal((await q.live((await a.store.get('busy'))!)).queuePosition, 0);
      assert.equal((await q.live((await a.store.get('behind'))!)).queuePosition, 1);
      assert.deepEqual(await q.load(), { waiting: 1, running: 1 });
      await new JobRecords(a.store, now).fail('busy', { message: 'cancelled', code: 'cancelled' });
      await q.withdraw('busy');
      await until('the job behind ran', () => ended(a.store, 'behind'));
    });

    test(`${backend}: withdraw takes a waiting job out of the line (never run) and stops one in hand ('ended'), resolving once it let go`, async () => {
      const q = await a.open();
      const r = runner(a.store, new Set(['held']));
      await submit(a, q, record('held', 1));
      await submit(a, q, record('waiting', 2));
      await submit(a, q, record('last', 3));
      await q.consume(r.run);
      await until('the first job is in hand', () => r.taken.includes('held:whole'));
      await new JobRecords(a.store, now).fail('waiting', { message: 'cancelled', code: 'cancelled' });
      await q.withdraw('waiting');
      await new JobRecords(a.store, now).fail('held', { message: 'cancelled', code: 'cancelled' });
      await q.withdraw('held');
      // resolved after the item settled: the runner saw its stop before withdraw() returned
      assert.deepEqual(r.settled, ['held']);
      assert.equal(r.stops.held, 'ended');
      await until('the last job ran', () => ended(a.store, 'last'));
      assert.deepEqual(r.taken, ['held:whole', 'last:whole']);
      assert.equal(await q.admitted(), 0, 'no withdrawn or ended job counts against MAX_QUEUED_JOBS');
    });

    test(`${backend}: withdraw from another process stops the item in hand there ('ended'), told by the queue, not by the record`, async () => {
      const q = await a.open();
      // the local queue is one process: it is its own other
      const other = backend === 'local' ? q : await a.open();
      const r = runner(a.store, new Set(['far']));
      await submit(a, q, record('far', 1));
      await submit(a, q, record('next', 2));
      await q.consume(r.run);
      await until('the job is in hand', () => r.taken.includes('far:whole'));
      await new JobRecords(a.store, now).fail('far', { message: 'cancelled', code: 'cancelled' });
      await other.withdraw('far');
      await until('the item in hand was stopped', () => r.settled.includes('far'));
      assert.equal(r.stops.far, 'ended');
      await until('the next job ran', () => ended(a.store, 'next'));
      assert.deepEqual(r.taken, ['far:whole', 'next:whole']);
    });

    test(`${backend}: shutdown past its grace hands the item in hand back ('hand_back'); the next process runs it and the waiting one`, async () => {
      const q = await a.open();
      const r = runner(a.store, new Set(['held']));
      await submit(a, q, record('held', 1));
      await submit(a, q, record('waiting', 2));
      await q.consume(r.run);
      await until('the first job is in hand', () => r.taken.includes('held:whole'));
      await q.shutdown(50);
      assert.equal(r.stops.held, 'hand_back');
      assert.equal((await a.store.get('held'))?.status, 'pending', 'a hand-back does not end the job');
      const next = await a.open();
      const r2 = runner(a.store);
      await next.consume(r2.run);
      await until('both jobs ended', async () => (await ended(a.store, 'held')) && (await ended(a.store, 'waiting')));
      assert.deepEqual(r2.taken.sort(), ['held:whole', 'waiting:whole']);
      assert.equal((await a.store.get('held'))?.status, 'ready');
      assert.deepEqual(r.taken, ['held:whole'], 'the stopping process took nothing more');
    });

    test(`${backend}: close interrupts the item in hand ('interrupt': its job ends in error) and leaves the waiting job to the next process`, async () => {
      const q = await a.open();
      const r = runner(a.store, new Set(['held']));
      await submit(a, q, record('held', 1));
      await submit(a, q, record('waiting', 2));
      await q.consume(r.run);
      await until('the first job is in hand', () => r.taken.includes('held:whole'));
      await q.close();
      assert.equal(r.stops.held, 'interrupt');
      assert.deepEqual(
        [(await a.store.get('held'))?.status, (await a.store.get('held'))?.code],
        ['error', 'interrupted'],
      );
      assert.equal((await a.store.get('waiting'))?.status, 'pending');
      const next = await a.open();
      const r2 = runner(a.store);
      await next.consume(r2.run);
      await until('the waiting job ended', () => ended(a.store, 'waiting'));
      assert.equal((await a.store.get('waiting'))?.status, 'ready');
      assert.deepEqual(r2.taken, ['waiting:whole'], 'the interrupted job is not run again');
    });

    test(`${backend}: the queue tells its listeners when the line moves and when an item reports progress`, async () => {
      const q = await a.open();
      let moved = 0;
      const changed = new Set<string>();
      q.events.on('queue', () => moved++);
      q.events.on('changed', (id) => changed.add(id));
      const r = runner(a.store, new Set(['told']));
      await submit(a, q, record('told', 1));
      await q.consume(r.run);
      await until('progress was told', () => changed.has('told'));
      await until('the line moved', () => moved > 0);
      await new JobRecords(a.store, now).fail('told', { message: 'cancelled', code: 'cancelled' });
      await q.withdraw('told');
    });
  });
}
