// Ends are atomic in Redis mode: a cancel (an API process) and a finish (a worker) racing for the same job each
// read the record, check it is pending and write it. With a plain read-check-write from two processes both could
// win: DELETE answered "cancelled" and the job then ended ready with its output served. Now exactly one wins.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestRedis } from '../../../helpers/redis.js';
import { RedisJobStore } from '../../../../src/server/jobs/store/redis.js';
import { connect } from '../../../../src/server/redis/connection.js';
import { JobRecords } from '../../../../src/server/jobs/job-records.js';
import type { JobRecord } from '../../../../src/server/jobs/store/port.js';
import type { Redis } from 'ioredis';

let redis: TestRedis;
let api: Redis;
let worker: Redis;
before(async () => {
  redis = await TestRedis.start();
  // two connections, as two processes have
  api = connect(redis.url);
  worker = connect(redis.url);
});
after(async () => {
  api?.disconnect();
  worker?.disconnect();
  await redis?.close();
});

const pending = (id: string): JobRecord => ({
  job_id: id,
  kind: 'frame',
  status: 'pending',
  created_at: Date.now(),
  started_at: Date.now(),
  source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n',
  params: {},
  assets: {},
});

test('cancel and finish racing 40 times: exactly one wins each time, and the record is the winner', async () => {
  const apiStore = new RedisJobStore(api, 60_000);
  const workerStore = new RedisJobStore(worker, 60_000);
  let cancels = 0;
  for (let i = 0; i < 40; i++) {
    const id = `race-${i}`;
    await apiStore.put(pending(id));
    const ready: JobRecord = { ...pending(id), status: 'ready', completed_at: Date.now(), progress: 1 };
    // the finish starts at once or a moment later, so the race goes both ways over the 40 rounds
    const [cancelled, finished] = await Promise.all([
      new JobRecords(apiStore, Date.now).fail(id, { message: 'cancelled by the client', code: 'cancelled' }),
      i % 2
        ? new Promise((r) => setTimeout(r, 1)).then(() => workerStore.endIfPending(ready))
        : workerStore.endIfPending(ready),
    ]);
    assert.notEqual(cancelled !== undefined, finished, `job ${i}: one winner, not ${cancelled ? 'both' : 'neither'}`);
    const stored = (await apiStore.get(id))!;
    assert.equal(stored.status, cancelled ? 'error' : 'ready');
    if (cancelled) {
      cancels++;
      assert.equal(stored.code, 'cancelled');
    }
  }
  console.log(`cancel won ${cancels} of 40, finish ${40 - cancels}`);
});

test('an ended record stays ended: a late cancel or a second finish changes nothing', async () => {
  const store = new RedisJobStore(api, 60_000);
  await store.put(pending('late'));
  // an ended record lives RETENTION_MS from its completed_at: real times, the second end's a moment later
  const at = Date.now();
  assert.equal(await store.endIfPending({ ...pending('late'), status: 'ready', completed_at: at }), true);
  assert.equal(
    await new JobRecords(store, Date.now).fail('late', { message: 'cancelled by the client', code: 'cancelled' }),
    undefined,
  );
  assert.equal(await store.endIfPending({ ...pending('late'), status: 'error', completed_at: at + 1 }), false);
  const rec = (await store.get('late'))!;
  assert.deepEqual([rec.status, rec.completed_at], ['ready', at]);
  assert.equal(await store.endIfPending({ ...pending('gone'), status: 'ready' }), false, 'no record: nothing to end');
  assert.equal(await store.get('gone'), undefined);
});
