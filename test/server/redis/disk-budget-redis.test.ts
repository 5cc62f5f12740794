// OUTPUT_MAX_BYTES counted once across processes (Redis mode): an API process that renders nothing refuses new jobs
// with 503 storage_full as soon as a worker's outputs fill the budget. Before,
// each process counted only what it wrote itself, so an API behind workers never refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRedis } from '../../helpers/redis.js';
import { startApp, FakeRenderer, silentLog, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { openServices, type Services } from '../../../src/server/services.js';
import { defaultConfig, type Config } from '../../../src/config/settings.js';
import { encodePng } from '../../../src/render/png.js';

let redis: TestRedis;
let api: TestApp;
let worker: Services;
let workerDir: string;

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
/** the fake renderer's 32x16 PNG: the budget holds exactly one, so once the worker stored it the budget is full */
const ONE = encodePng(new Uint8Array(32 * 16 * 4).fill(200), 32, 16).length;

before(async () => {
  redis = await TestRedis.start();
  workerDir = await mkdtemp(join(tmpdir(), 'cmr-budget-'));
  // the API and the worker share one DATA_DIR (the outputs every process sees), each in its own process state
  api = await startApp({
    renderer: new FakeRenderer(),
    config: { redisUrl: redis.url, renderConcurrency: 0, outputMaxBytes: ONE, dataDir: workerDir },
  });
  const config: Config = {
    ...defaultConfig(),
    dataDir: workerDir,
    redisUrl: redis.url,
    renderConcurrency: 1,
    renderCache: false,
    outputMaxBytes: ONE,
    logLevel: 'silent',
  };
  // a render worker: the same services as `npm run worker` opens, taking work once resumed
  worker = await openServices({ config, renderer: new FakeRenderer(), worker: true, log: silentLog });
  await worker.jobs.resume();
});
after(async () => {
  await worker?.close();
  await api?.close();
  await redis?.close();
  await rm(workerDir, { recursive: true, force: true });
});

test("a worker's outputs fill the budget: the API that rendered nothing refuses the next job with 503 storage_full", async () => {
  const first = await post(api.app, '/v1/frame', { source: SRC, params: { width: 32 } });
  assert.equal(first.statusCode, 202, first.body);
  const done = (await waitJob(api.app, first.json().job_id)).json();
  assert.equal(done.status, 'ready');
  // the worker's PNG fills the budget and is held by a job younger than 24 h: nothing may go
  const full = await post(api.app, '/v1/frame', { source: SRC, params: { width: 32 } });
  assert.equal(full.statusCode, 503, full.body);
  assert.equal(full.json().code, 'storage_full');
  assert.ok(full.headers['retry-after']);
  const health = await api.app.inject({ url: '/healthz' });
  assert.equal(health.statusCode, 503);
  assert.equal(health.json().code, 'storage_full');
});
