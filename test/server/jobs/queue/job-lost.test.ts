// A job whose queue entry Redis no longer has (Redis restarted without its data, an entry removed by hand) ends in
// error with the registered code `job_lost` instead of staying pending for ever; a job whose entry is there is not
// lost. The real BullMQ queue over a real Redis.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestRedis } from '../../../helpers/redis.js';
import { silentLog } from '../../../helpers/app.js';
import { RedisJobStore } from '../../../../src/server/jobs/store/redis.js';
import { BullmqQueue } from '../../../../src/server/jobs/queue/bullmq.js';
import { connect } from '../../../../src/server/redis/connection.js';
import type { JobRecord } from '../../../../src/server/jobs/store/port.js';
import type { Redis } from 'ioredis';

let redis: TestRedis;
let conn: Redis;
let queue: BullmqQueue;
let clock = Date.now();
before(async () => {
  redis = await TestRedis.start();
  conn = connect(redis.url);
  queue = new BullmqQueue({
    connection: conn,
    redisUrl: redis.url,
    store: new RedisJobStore(conn, 60_000),
    concurrency: 1,
    stalledIntervalMs: 30_000,
    followEvents: false,
    log: silentLog,
    now: () => clock,
  });
});
after(async () => {
  await queue?.close();
  conn?.disconnect();
  await redis?.close();
});

const pending = (id: string, createdAt: number): JobRecord => ({
  job_id: id,
  kind: 'frame',
  status: 'pending',
  created_at: createdAt,
  source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n',
  params: {},
  assets: {},
});

test('a pending job with no queue entry is lost past its grace: code job_lost and its sentence', async () => {
  const rec = pending('lost-1', clock);
  assert.equal(await queue.lost(rec), undefined, 'a fresh job is given time for its entry to appear');
  clock += 60_000;
  assert.deepEqual(await queue.lost(rec), {
    message: 'render failed: the queue lost the job (Redis restarted without its data?)',
    code: 'job_lost',
  });
});
