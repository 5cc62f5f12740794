// Batches as records (HTTP shape; the fake renderer writes each row's file, the rendering itself is
// batches.test.ts's with Chromium): the webhook is called once per batch, signed as a job's; a batch the queue
// (MAX_QUEUED_JOBS) or the client's places (MAX_QUEUED_JOBS_PER_CLIENT) cannot take whole is refused with no job
// made, one at the edge is taken; a batch survives a restart (its view, its archive, its Idempotency-Key), and one
// whose rows were pending when the service stopped ends after the next start.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/server/app.js';
import { defaultConfig, type Config } from '../../../src/config/settings.js';
import { FakeRenderer, gate, silentLog } from '../../helpers/app.js';
import { startReceiver, verifyWebhook } from '../../helpers/webhook-receiver.js';
import { until } from '../../helpers/until.js';
import { waitBatch } from '../../helpers/job-client.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function start(dataDir: string, renderer: FakeRenderer, config: Partial<Config> = {}): Promise<FastifyInstance> {
  const app = await buildApp({
    config: { ...defaultConfig(), dataDir, logLevel: 'silent', renderConcurrency: 1, renderCache: false, ...config },
    renderer,
    logger: silentLog,
  });
  await app.ready();
  return app;
}

const SOURCE =
  'runner "0.0.3";\nuse std.shapes.*;\nscene card(fill: Color = #808080) -> Frame {\n  compose [rect(width: 64px, height: 36px, fill: fill)]\n}\n';
const body = (n: number, extra: Record<string, unknown> = {}) => ({
  kind: 'frame',
  source: SOURCE,
  params: { width: 32, height: 18 },
  rows: Array.from({ length: n }, (_, i) => ({ args: { fill: i % 2 ? '#ff0000' : '#0000ff' } })),
  ...extra,
});
const post = (app: FastifyInstance, b: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/v1/batches',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(b),
  });

async function accepted(app: FastifyInstance): Promise<number> {
  const text = (await app.inject({ url: '/metrics' })).body;
  return [...text.matchAll(/^cmrender_jobs_accepted_total(?:\{[^}]*\})? (\d+)/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
}

test('the webhook is called once when the batch ends, with its view, signed as a job webhook is', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-batch-'));
  dirs.push(dataDir);
  const hook = await startReceiver();
  const app = await start(dataDir, new FakeRenderer(), { webhookAllow: ['127.0.0.1'] });
  try {
    const first = await post(app, body(3, { webhook: { url: hook.url, secret: 'sh' } }));
    assert.equal(first.statusCode, 202, first.body);
    const [hit] = await hook.waitFor(1);
    const sent = JSON.parse(hit!.body);
    assert.equal(sent.batch_id, first.json().batch_id);
    assert.equal(sent.status, 'ready');
    assert.deepEqual(sent.counts, { pending: 0, ready: 3, error: 0 });
    assert.equal(hit!.headers['webhook-id'], `msg_${sent.batch_id}`);
    assert.ok(
      verifyWebhook(
        'sh',
        String(hit!.headers['x-cmrender-timestamp']),
        hit!.body,
        String(hit!.headers['x-cmrender-signature']),
      ),
    );
    // a second batch's call comes after the first's: the first batch was told once
    const second = await post(app, body(2, { webhook: { url: hook.url } }));
    const hits = await hook.waitFor(2);
    assert.equal(JSON.parse(hits[1]!.body).batch_id, second.json().batch_id);
    assert.equal(hook.hits.filter((h) => JSON.parse(h.body).batch_id === sent.batch_id).length, 1);
  } finally {
    await app.close();
    await hook.close();
  }
});

test('a batch the queue or the client places cannot take whole is refused and makes no job; one at the edge is taken', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-batch-'));
  dirs.push(dataDir);
  const hold = gate();
  const renderer = new FakeRenderer();
  renderer.behaviour = () => hold.promise;
  const app = await start(dataDir, renderer, { maxQueuedJobs: 6, maxQueuedJobsPerClient: 5 });
  try {
    const before = await accepted(app);
    const queueFull = await post(app, body(7));
    assert.equal(queueFull.statusCode, 503, queueFull.body);
    assert.equal(queueFull.json().code, 'queue_full');
    assert.ok(Number(queueFull.headers['retry-after']) >= 1);
    const clientFull = await post(app, body(6));
    assert.equal(clientFull.statusCode, 429, clientFull.body);
    assert.equal(clientFull.json().code, 'client_queue_full');
    assert.equal(clientFull.headers['retry-after'], '5');
    assert.equal(await accepted(app), before, 'no job was made');
    const edge = await post(app, body(5));
    assert.equal(edge.statusCode, 202, edge.body);
    assert.equal(await accepted(app), before + 5);
    // the client's places are all taken now: one more row is refused
    const one = await post(app, body(1));
    assert.equal(one.statusCode, 429, one.body);
    hold.open();
    await waitBatch(app, edge.json().batch_id, 30_000);
  } finally {
    hold.open();
    await app.close();
  }
});

test('a batch survives a restart: its view, archive and Idempotency-Key; rows pending at the stop end after the start', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-batch-'));
  dirs.push(dataDir);
  const first = await start(dataDir, new FakeRenderer());
  const done = await post(first, body(3), { 'idempotency-key': 'restart-1' });
  assert.equal(done.statusCode, 202, done.body);
  const doneId = done.json().batch_id;
  const view = await waitBatch(first, doneId, 30_000);
  await first.close();

  const hold = gate();
  const stuck = new FakeRenderer();
  stuck.behaviour = () => hold.promise;
  const second = await start(dataDir, stuck);
  assert.deepEqual((await second.inject({ url: `/v1/batches/${doneId}` })).json(), view);
  assert.equal((await second.inject({ url: `/v1/batches/${doneId}/archive` })).statusCode, 200);
  const replay = await post(second, body(3), { 'idempotency-key': 'restart-1' });
  assert.equal(replay.json().batch_id, doneId);
  const open = await post(second, body(4));
  const openId = open.json().batch_id;
  await until(
    () => 'a row rendering',
    () => stuck.calls.length >= 1,
    10_000,
  );
  await second.close();
  hold.open();

  const third = await start(dataDir, new FakeRenderer());
  try {
    const after = await waitBatch(third, openId, 30_000);
    assert.equal(after.count, 4);
    assert.equal(after.counts.pending, 0);
    assert.ok(after.counts.ready >= 3, JSON.stringify(after.counts));
  } finally {
    await third.close();
  }
});
