// GET /metrics of an API process in Redis mode: parsed with Prometheus' own parser, it counts the jobs this process
// accepted and carries the shared queue's counts (our gauges and BullMQ's own export) as the queue holds them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestRedis } from '../../helpers/redis.js';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { post } from '../../helpers/job-client.js';
import { parseExposition, valueOf } from '../../helpers/prometheus.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
let redis: TestRedis;
const apps: TestApp[] = [];
before(async () => {
  redis = await TestRedis.start();
});
after(async () => {
  for (const a of apps) await a.close();
  await redis?.close();
});

test('an API without workers: 3 frames accepted are 3 waiting in the shared queue, seen from both APIs', async () => {
  // RENDER_CONCURRENCY=0: these APIs render nothing, so the jobs stay in line
  const config = { redisUrl: redis.url, renderConcurrency: 0 };
  for (let i = 0; i < 2; i++) apps.push(await startApp({ renderer: new FakeRenderer(), config }));
  const [a, b] = apps.map((t) => t.app);
  for (let i = 0; i < 3; i++) assert.equal((await post(a!, '/v1/frame', { source: SRC })).statusCode, 202);

  const fromA = parseExposition((await a!.inject({ url: '/metrics' })).body);
  const fromB = parseExposition((await b!.inject({ url: '/metrics' })).body);
  assert.equal(valueOf(fromA, 'cmrender_jobs_accepted_total', { kind: 'frame' }), 3);
  assert.equal(valueOf(fromB, 'cmrender_jobs_accepted_total', { kind: 'frame' }), 0, 'each process counts its own');
  for (const s of [fromA, fromB]) {
    assert.equal(valueOf(s, 'cmrender_queue_depth'), 3);
    assert.equal(valueOf(s, 'cmrender_jobs_running'), 0);
    // the fair queue gives every job a priority: BullMQ counts them as "prioritized" (waiting by priority)
    const waiting = s.find((x) => x.name === 'bullmq_job_count' && x.labels.state === 'prioritized');
    assert.equal(waiting?.value, 3, "BullMQ's own export");
  }
});
