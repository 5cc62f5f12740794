// Webhooks through the real app: a receiver on 127.0.0.1 (allowed through WEBHOOK_ALLOW) gets the job's view,
// signed; a failed delivery is retried on the schedule, then given up; a delivery pending at shutdown resumes after
// a restart; non-public addresses are refused at POST unless allowed (no traffic is ever sent to them).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, FakeRenderer, JobFailure, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { startReceiver, type Receiver, verifyWebhook } from '../../helpers/webhook-receiver.js';
import { parseExposition, valueOf } from '../../helpers/prometheus.js';
import { until } from '../../helpers/until.js';
import type { Config } from '../../../src/config/settings.js';
import { CODE } from '../../../src/contract/error-codes.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const LOOPBACK: Partial<Config> = {
  webhookAllow: ['127.0.0.0/8'],
  webhookRetryMs: [30, 60, 60],
  webhookTimeoutMs: 5_000,
};
const apps: TestApp[] = [];
const receivers: Receiver[] = [];
after(async () => {
  for (const a of apps) await a.close();
  for (const r of receivers) await r.close();
});
async function receiver(status?: (n: number) => number) {
  const r = await startReceiver(status);
  receivers.push(r);
  return r;
}
/**
 * The delivery attempts an app has recorded, by outcome (cmrender_webhook_deliveries_total). A delivery that was
 * delivered or given up is never attempted again, so these counts prove that nothing more will arrive.
 */
async function attempts(t: TestApp): Promise<{ delivered: number; failed: number; gave_up: number }> {
  const s = parseExposition((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
  const n = (outcome: string) => valueOf(s, 'cmrender_webhook_deliveries_total', { outcome });
  return { delivered: n('delivered'), failed: n('failed'), gave_up: n('gave_up') };
}

test('a job that ends POSTs its view to the webhook, signed with the secret; without a secret, unsigned', async () => {
  const rx = await receiver();
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake, config: LOOPBACK });
  apps.push(t);
  const secret = 'test-secret-1';
  const id = (await post(t.app, '/v1/frame', { source: SRC, webhook: { url: rx.url, secret } })).json().job_id;
  const [hit] = await rx.waitFor(1);
  const polled = (await waitJob(t.app, id)).json();
  assert.deepEqual(JSON.parse(hit.body), polled, 'the body is the job view GET answers');
  assert.equal(polled.status, 'ready');
  assert.match(String(hit.headers['content-type']), /^application\/json/);
  const ts = String(hit.headers['x-cmrender-timestamp']);
  assert.match(ts, /^\d+$/);
  assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 300, 'a current timestamp');
  const sig = String(hit.headers['x-cmrender-signature']);
  assert.match(sig, /^[0-9a-f]{64}$/);
  assert.ok(verifyWebhook(secret, ts, hit.body, sig), 'the signature verifies');
  assert.ok(!verifyWebhook('other', ts, hit.body, sig), 'and not with another secret');
  assert.ok(!verifyWebhook(secret, String(Number(ts) + 1), hit.body, sig), 'nor with another timestamp');

  // an error job is delivered too (500 on GET, the same view in the webhook); no secret: no signature header
  fake.behaviour = () => {
    throw new JobFailure('render failed: test', CODE.page_failed);
  };
  const bad = (await post(t.app, '/v1/render', { source: SRC, webhook: { url: rx.url } })).json().job_id;
  const [, second] = await rx.waitFor(2);
  assert.deepEqual([JSON.parse(second.body).job_id, JSON.parse(second.body).status], [bad, 'error']);
  assert.equal(second.headers['x-cmrender-signature'], undefined);
  await until('both deliveries recorded delivered', async () => (await attempts(t)).delivered === 2);
  assert.deepEqual(await attempts(t), { delivered: 2, failed: 0, gave_up: 0 }, 'one attempt each');
  assert.equal(rx.hits.length, 2, 'each job is delivered once');
});

test('a failed delivery (500) is retried; after the schedule runs out it is given up', async () => {
  const flaky = await receiver((n) => (n === 1 ? 500 : 200));
  const t = await startApp({ renderer: new FakeRenderer(), config: LOOPBACK });
  apps.push(t);
  const id = (await post(t.app, '/v1/frame', { source: SRC, webhook: { url: flaky.url, secret: 's' } })).json().job_id;
  const [first, second] = await flaky.waitFor(2);
  assert.equal(first.body, second.body, 'the same view again');
  assert.equal(JSON.parse(second.body).job_id, id);
  await until('the retry recorded delivered', async () => (await attempts(t)).delivered === 1);
  assert.deepEqual(await attempts(t), { delivered: 1, failed: 1, gave_up: 0 });
  assert.equal(flaky.hits.length, 2, 'delivered: no more attempts');

  const down = await receiver(() => 503);
  await post(t.app, '/v1/frame', { source: SRC, webhook: { url: down.url } });
  await down.waitFor(4); // 1 + the 3 retries of the test schedule
  await until('the delivery recorded given up', async () => (await attempts(t)).gave_up === 1);
  assert.deepEqual(await attempts(t), { delivered: 1, failed: 1 + 3, gave_up: 1 }, 'the first receiver and 3 failures');
  assert.equal(down.hits.length, 4, 'given up after the last retry');
});

test('a receiver that hangs never holds up rendering: the attempt times out and is retried while jobs render', async () => {
  const hanging = await receiver((n) => (n < 3 ? 0 : 204));
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake, config: { ...LOOPBACK, webhookTimeoutMs: 300 } });
  apps.push(t);
  const hooked = (await post(t.app, '/v1/frame', { source: SRC, webhook: { url: hanging.url } })).json().job_id;
  await hanging.waitFor(1);
  // the first attempt hangs: jobs keep rendering meanwhile
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await post(t.app, '/v1/frame', { source: SRC })).json().job_id);
  for (const id of ids) assert.equal((await waitJob(t.app, id)).json().status, 'ready');
  const hits = await hanging.waitFor(3);
  assert.ok(hits.every((h) => JSON.parse(h.body).job_id === hooked));
});

test('a delivery pending when the service stops is made after the restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-webhook-'));
  let up = false;
  const rx = await receiver(() => (up ? 204 : 500));
  try {
    // the first run retries only after a minute: it is stopped well before that
    const a = await startApp({
      renderer: new FakeRenderer(),
      config: { ...LOOPBACK, dataDir, webhookRetryMs: [60_000] },
    });
    const id = (await post(a.app, '/v1/frame', { source: SRC, webhook: { url: rx.url, secret: 'k' } })).json().job_id;
    await rx.waitFor(1);
    await a.close();
    up = true;
    const fake = new FakeRenderer();
    const b = await startApp({ renderer: fake, config: { ...LOOPBACK, dataDir, webhookRetryMs: [30] } });
    apps.push(b);
    const [, again] = await rx.waitFor(2);
    assert.deepEqual([JSON.parse(again.body).job_id, JSON.parse(again.body).status], [id, 'ready']);
    assert.ok(
      verifyWebhook(
        'k',
        String(again.headers['x-cmrender-timestamp']),
        again.body,
        String(again.headers['x-cmrender-signature']),
      ),
    );
    assert.equal(fake.calls.length, 0, 'the job is not rendered again');
    await until('the delivery recorded delivered after the restart', async () => (await attempts(b)).delivered === 1);
    assert.deepEqual(await attempts(b), { delivered: 1, failed: 0, gave_up: 0 });
    assert.equal(rx.hits.length, 2);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('non-public webhook addresses are refused at POST (400 webhook_not_allowed) unless WEBHOOK_ALLOW names them', async () => {
  const rx = await receiver();
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake });
  apps.push(t);
  const port = new URL(rx.url).port;
  for (const url of [
    rx.url,
    `http://localhost:${port}/hook`, // a name that resolves to loopback
    'http://10.0.0.1/hook',
    'http://192.168.1.1/hook',
    'http://169.254.169.254/latest/meta-data',
    `http://[::1]:${port}/hook`,
    `http://[::ffff:127.0.0.1]:${port}/hook`,
    'http://[fd00::1]/hook',
    'http://0.0.0.0/hook',
  ]) {
    const r = await post(t.app, '/v1/render', { source: SRC, webhook: { url } });
    assert.equal(r.statusCode, 400, url);
    assert.equal(r.json().code, 'webhook_not_allowed', url);
  }
  for (const webhook of [
    { url: 'ftp://example.com/x' },
    { url: 'file:///etc/passwd' },
    { url: 'not a url' },
    {},
    'http://example.com',
    { url: 'http://user:pw@example.com/' },
    { url: 'https://example.com/', secret: 42 },
  ]) {
    const r = await post(t.app, '/v1/frame', { source: SRC, webhook });
    assert.equal(r.statusCode, 400, JSON.stringify(webhook));
    assert.equal(r.json().code, 'bad_webhook', JSON.stringify(webhook));
  }
  assert.equal(fake.calls.length, 0, 'no job was made');
  assert.equal(rx.hits.length, 0, 'and no traffic reached the local listener');

  // allowing loopback admits loopback, and nothing else
  const allowed = await startApp({
    renderer: new FakeRenderer(),
    config: { webhookAllow: ['127.0.0.0/8', 'localhost'] },
  });
  apps.push(allowed);
  assert.equal((await post(allowed.app, '/v1/frame', { source: SRC, webhook: { url: rx.url } })).statusCode, 202);
  assert.equal(
    (await post(allowed.app, '/v1/frame', { source: SRC, webhook: { url: `http://localhost:${port}/hook` } }))
      .statusCode,
    202,
  );
  assert.equal(
    (await post(allowed.app, '/v1/frame', { source: SRC, webhook: { url: 'http://10.0.0.1/hook' } })).json().code,
    'webhook_not_allowed',
  );
  await rx.waitFor(2);
});
