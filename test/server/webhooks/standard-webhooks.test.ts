// Standard Webhooks through the real app: a delivery verifies with the specification's own JavaScript library
// (`standardwebhooks`), with a `whsec_` secret and with a plain one; webhook-id is the same on every retry; a 410
// from the receiver stops the retries; the deprecated X-CMRender-* headers are still sent.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { startReceiver, type Receiver, verifyWebhook } from '../../helpers/webhook-receiver.js';
import type { Config } from '../../../src/config/settings.js';
import { parseExposition, valueOf } from '../../helpers/prometheus.js';
import { until } from '../../helpers/until.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const LOOPBACK: Partial<Config> = {
  webhookAllow: ['127.0.0.0/8'],
  webhookRetryMs: [30, 30, 30],
  webhookTimeoutMs: 5_000,
};
const apps: TestApp[] = [];
const receivers: Receiver[] = [];
after(async () => {
  for (const a of apps) await a.close();
  for (const r of receivers) await r.close();
});
async function setup(status?: (n: number) => number) {
  const rx = await startReceiver(status);
  receivers.push(rx);
  const t = await startApp({ renderer: new FakeRenderer(), config: LOOPBACK });
  apps.push(t);
  return { rx, t };
}
const headersOf = (h: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)])) as Record<string, string>;

test('a delivery signed with a whsec_ secret verifies with the standardwebhooks library; a tampered one does not', async () => {
  const { rx, t } = await setup();
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const id = (await post(t.app, '/v1/frame', { source: SRC, webhook: { url: rx.url, secret } })).json().job_id;
  const [hit] = await rx.waitFor(1);
  const headers = headersOf(hit.headers);
  const payload = new Webhook(secret).verify(hit.body, headers) as { job_id: string; status: string };
  assert.deepEqual(payload, (await waitJob(t.app, id)).json(), 'the verified payload is the job view');
  assert.equal(headers['webhook-id'], `msg_${id}`);
  assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
  assert.throws(() => new Webhook(secret).verify(hit.body.replace('ready', 'error'), headers), /signature/i);
  const other = `whsec_${randomBytes(24).toString('base64')}`;
  assert.throws(() => new Webhook(other).verify(hit.body, headers), /signature/i);
  // deprecated, still sent for a release: the same timestamp, the old hex HMAC
  assert.equal(headers['x-cmrender-timestamp'], headers['webhook-timestamp']);
  assert.ok(verifyWebhook(secret, headers['x-cmrender-timestamp'], hit.body, headers['x-cmrender-signature']));
});

test('a plain (non-whsec_) secret is used as its own bytes: the library verifies it in its raw format', async () => {
  const { rx, t } = await setup();
  const secret = 's3cr3t-plain';
  await post(t.app, '/v1/frame', { source: SRC, webhook: { url: rx.url, secret } });
  const [hit] = await rx.waitFor(1);
  assert.ok(new Webhook(secret, { format: 'raw' }).verify(hit.body, headersOf(hit.headers)));
});

test('webhook-id stays the same across retries while webhook-timestamp is each attempt own', async () => {
  const { rx, t } = await setup((n) => (n < 3 ? 500 : 204));
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const id = (await post(t.app, '/v1/frame', { source: SRC, webhook: { url: rx.url, secret } })).json().job_id;
  const hits = await rx.waitFor(3);
  assert.deepEqual(
    hits.map((h) => h.headers['webhook-id']),
    [`msg_${id}`, `msg_${id}`, `msg_${id}`],
  );
  for (const h of hits) assert.ok(new Webhook(secret).verify(h.body, headersOf(h.headers)), 'every attempt verifies');
  // the metrics count each attempt by its outcome once its state is written (bounded wait for the third)
  let samples = parseExposition((await t.app.inject({ url: '/metrics' })).body);
  await until(
    'the third attempt counted delivered',
    async () => {
      samples = parseExposition((await t.app.inject({ url: '/metrics' })).body);
      return valueOf(samples, 'cmrender_webhook_deliveries_total', { outcome: 'delivered' }) >= 1;
    },
    5_000,
  );
  assert.equal(valueOf(samples, 'cmrender_webhook_deliveries_total', { outcome: 'failed' }), 2);
  assert.equal(valueOf(samples, 'cmrender_webhook_deliveries_total', { outcome: 'delivered' }), 1);
  assert.equal(valueOf(samples, 'cmrender_webhook_deliveries_total', { outcome: 'gave_up' }), 0);
});

test('a 410 Gone from the receiver stops the retries at once (a 404 does not)', async () => {
  const { rx, t } = await setup(() => 410);
  const id = (await post(t.app, '/v1/frame', { source: SRC, webhook: { url: rx.url } })).json().job_id;
  await rx.waitFor(1);
  // the delivery state is written to the record after the attempt: wait (bounded) for gave_up_at
  let rec = await t.app.jobs.get(id);
  await until(
    () => `gave_up_at on the record (webhook: ${JSON.stringify(rec?.webhook)})`,
    async () => (rec = await t.app.jobs.get(id))?.webhook?.gave_up_at !== undefined,
    5_000,
  );
  assert.equal(rec?.webhook?.attempts, 1, 'one attempt, given up');
  assert.ok(rec?.webhook?.gave_up_at);
  assert.equal(rx.hits.length, 1);
  const samples = parseExposition((await t.app.inject({ url: '/metrics' })).body);
  assert.equal(valueOf(samples, 'cmrender_webhook_deliveries_total', { outcome: 'gave_up' }), 1);
  assert.equal(valueOf(samples, 'cmrender_webhook_deliveries_total', { outcome: 'failed' }), 0);

  const { rx: rx404, t: t2 } = await setup((n) => (n === 1 ? 404 : 204));
  await post(t2.app, '/v1/frame', { source: SRC, webhook: { url: rx404.url } });
  await rx404.waitFor(2);
});
