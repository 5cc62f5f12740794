// Redis mode reads in O(1): a pending job's view (its queue position and progress) costs the same few Redis commands
// with 300 jobs waiting as with 3, and 100 event streams following one job cost one read per change, not one each.
// Before, a read loaded BullMQ's whole waiting list (2,000 jobs waiting: 0.8-1.2 s per GET) and every queue event
// made every stream do that read (200 streams: the API stopped answering). Counted with the server's own
// total_commands_processed, so the test does not depend on how fast the machine is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { TestRedis } from '../../helpers/redis.js';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { post } from '../../helpers/job-client.js';
import { until } from '../../helpers/until.js';

let redis: TestRedis;
let t: TestApp;
let probe: Redis;

before(async () => {
  redis = await TestRedis.start();
  // no render slot: every job stays waiting
  t = await startApp({ renderer: new FakeRenderer(), config: { redisUrl: redis.url, renderConcurrency: 0 } });
  probe = new Redis(redis.url);
});
after(async () => {
  probe?.disconnect();
  await t?.close();
  await redis?.close();
});

const FRAME = { source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n', params: { width: 32 } };

/** Commands the server processed while fn ran (less the INFO calls that read the count). */
async function commandsDuring(fn: () => Promise<unknown>): Promise<number> {
  const count = async () => Number(/total_commands_processed:(\d+)/.exec(await probe.info('stats'))![1]);
  const before = await count();
  await fn();
  return (await count()) - before - 1;
}

async function enqueue(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await post(t.app, '/v1/frame', FRAME);
    assert.equal(r.statusCode, 202, r.body);
    ids.push(r.json().job_id);
  }
  return ids;
}

test('a pending job is read with the same few commands whether 3 or 300 jobs wait; its position is its place', async () => {
  const first = await enqueue(3);
  const read = (id: string) => t.app.inject({ url: `/v1/jobs/${id}` });
  const few = await commandsDuring(() => read(first[2]!));
  assert.equal((await read(first[2]!)).json().queue_position, 3);
  const more = await enqueue(297);
  const many = await commandsDuring(() => read(more[296]!));
  assert.equal((await read(more[296]!)).json().queue_position, 300);
  assert.equal((await read(first[0]!)).json().queue_position, 1);
  assert.ok(many <= 10, `one read took ${many} Redis commands with 300 jobs waiting`);
  assert.ok(many <= few + 1, `${few} commands with 3 waiting, ${many} with 300`);
  // a cancel moves the line up at once
  assert.equal((await t.app.inject({ method: 'DELETE', url: `/v1/jobs/${first[0]}` })).statusCode, 200);
  assert.equal((await read(first[1]!)).json().queue_position, 1);
});

test('100 event streams on one job: a queue event costs one read of it, not one per stream', async () => {
  // what proves the reads are over (no fixed wait): the queue events seen, and the job reads still in flight
  const jobs = t.app.jobs;
  let queueEvents = 0;
  const onQueue = () => queueEvents++;
  jobs.events.on('queue', onQueue);
  let reading = 0;
  const get = jobs.get.bind(jobs);
  jobs.get = async (jobId: string) => {
    reading++;
    try {
      return await get(jobId);
    } finally {
      reading--;
    }
  };
  // a POST makes two queue events: the service's own at once, and BullMQ's "waiting" through Redis
  const settled = (events: number) => () => queueEvents >= events && reading === 0;
  const [id] = await enqueue(1);
  await until(() => `the POST's two queue events (seen ${queueEvents})`, settled(2), 10_000);
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const ctl = new AbortController();
  const streams = await Promise.all(
    Array.from({ length: 100 }, async () => {
      const res = await fetch(`${base}/v1/jobs/${id}/events`, { signal: ctl.signal });
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      return { reader, first };
    }),
  );
  for (const s of streams) assert.match(s.first, /^event: progress\ndata: .*"queue_position":\d+/);
  // quiet: the streams' first reads are done (and the one read after them, for the streams that came meanwhile)
  await until(() => `the streams' reads to end (${reading} in flight)`, settled(0), 10_000);
  // one more job: the line moved (a queue event here, and BullMQ's "waiting" through Redis); counted until both
  // events came and the reads they made are over
  const cost = await commandsDuring(async () => {
    const seen = queueEvents;
    await enqueue(1);
    await until(
      () => `the POST's two queue events and their reads (seen ${queueEvents - seen})`,
      settled(seen + 2),
      10_000,
    );
  });
  jobs.events.off('queue', onQueue);
  jobs.get = get;
  ctl.abort();
  for (const s of streams) await s.reader.cancel().catch(() => {});
  // a POST is about a dozen commands; a read of the followed job three or four, once per event
  assert.ok(cost < 60, `${cost} Redis commands for one POST with 100 streams following a job`);
});
