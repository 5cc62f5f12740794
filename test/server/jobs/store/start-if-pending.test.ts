// A job's start is written only on a pending record, and the caller learns it: a cancel that lands between the item
// runner's read of the record and its start leaves the record cancelled and nothing rendered. Each store was wrong
// the same way (markStarted set rec.started_at before the check, and the runner took that as "started"): the memory
// store and the journal (held by one process, locally()) and Redis (one script on the server, run for real).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { TestRedis } from '../../../helpers/redis.js';
import { FakeRenderer, silentLog } from '../../../helpers/app.js';
import { RedisJobStore } from '../../../../src/server/jobs/store/redis.js';
import { connect } from '../../../../src/server/redis/connection.js';
import { JournalJobStore } from '../../../../src/server/jobs/store/journal.js';
import type { JobRecord, LifecycleStore } from '../../../../src/server/jobs/store/port.js';
import { locally, MemoryJobStore } from '../../../../src/server/jobs/store/memory.js';
import { JobRecords } from '../../../../src/server/jobs/job-records.js';
import { ItemRunner, type ItemEvents } from '../../../../src/server/jobs/run-item.js';
import { CANCELLED } from '../../../../src/server/jobs/job-failure.js';
import { AssetStore } from '../../../../src/server/storage/asset-store.js';
import { OutputStore } from '../../../../src/server/storage/output-store.js';
import { DiskStorage } from '../../../../src/server/storage/storage.js';

let redis: TestRedis;
let conn: Redis;
let dir: string;
let journal: JournalJobStore;
before(async () => {
  redis = await TestRedis.start();
  conn = connect(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'cmr-start-'));
  journal = await JournalJobStore.open({ dir: join(dir, 'journal') });
});
after(async () => {
  conn?.disconnect();
  await redis?.close();
  await journal?.close();
  await rm(dir, { recursive: true, force: true });
});

const STORES: [string, () => LifecycleStore][] = [
  ['memory', () => locally(new MemoryJobStore())],
  ['journal', () => locally(journal)],
  ['redis', () => new RedisJobStore(conn, 60_000)],
];

let n = 0;
const pending = (): JobRecord => ({
  job_id: `start-${process.pid}-${++n}`,
  kind: 'frame',
  status: 'pending',
  created_at: Date.now(),
  source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n',
  params: {},
  assets: {},
});
const cancel = (store: LifecycleStore, id: string) =>
  new JobRecords(store, Date.now).fail(id, { message: CANCELLED, code: 'cancelled' });

for (const [name, make] of STORES) {
  test(`${name}: starting a record cancelled since it was read is refused, and neither the record nor the caller's copy says started`, async () => {
    const store = make();
    const rec = pending();
    await store.put(rec);
    const read = (await store.get(rec.job_id))!;
    assert.ok(await cancel(store, rec.job_id), 'the cancel wins');
    assert.equal(await store.markStarted(read, Date.now()), false);
    assert.equal(read.started_at, undefined, "the caller's copy is not started");
    const stored = (await store.get(rec.job_id))!;
    assert.equal(stored.status, 'error');
    assert.equal(stored.code, 'cancelled');
    assert.equal(stored.started_at, undefined);
    // a pending one starts as before
    const other = pending();
    await store.put(other);
    assert.equal(await store.markStarted(other, 1234), true);
    assert.equal(other.started_at, 1234);
    assert.equal((await store.get(other.job_id))!.started_at, 1234);
  });

  test(`${name}: a job cancelled at the moment its first item starts is not rendered`, async () => {
    const real = make();
    // the cancel lands between the runner's read of the record and its start: exactly the window of the race
    const racing = new Proxy(real, {
      get(target, key) {
        if (key === 'markStarted')
          return async (r: JobRecord, at: number) => {
            await cancel(target, r.job_id);
            return target.markStarted(r, at);
          };
        const v = Reflect.get(target, key, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const renderer = new FakeRenderer();
    const files = new DiskStorage(join(dir, `${name}-files`));
    await files.init();
    const events = new EventEmitter<ItemEvents>();
    const started: string[] = [];
    events.on('started', (r) => started.push(r.job_id));
    const runner = new ItemRunner({
      store: racing,
      renderer,
      joinSegments: async () => {
        throw new Error('no join in this test');
      },
      assets: new AssetStore(files),
      outputs: new OutputStore({ files, store: real, log: silentLog, now: Date.now }),
      segments: files,
      jobTimeoutMs: 10_000,
      scratch: (s) => join(dir, 'scratch', s),
      events,
      log: silentLog,
      now: Date.now,
    });
    const rec = pending();
    await real.put(rec);
    const ctl = new AbortController();
    const outcome = await runner.run(
      { id: rec.job_id, part: 'whole' },
      {
        signal: ctl.signal,
        stopReason: () => undefined,
        report: () => {},
        chunkResults: async () => [],
      },
    );
    assert.deepEqual(outcome, { status: 'stopped' });
    assert.equal(renderer.calls.length, 0, 'nothing rendered');
    assert.deepEqual(started, [], 'no job_started');
    const stored = (await real.get(rec.job_id))!;
    assert.equal(stored.code, 'cancelled');
    assert.equal(stored.started_at, undefined);
  });
}
