// The webhook address policy with a stubbed resolver (no DNS, no traffic), and the dispatcher's second check at
// delivery time: a name that resolves to a non-public address by then is not called.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebhookPolicy, WebhookRefused } from '../../../src/server/webhooks/address-policy.js';
import { WebhookDispatcher } from '../../../src/server/webhooks/dispatcher.js';
import { MemoryJobStore, locally } from '../../../src/server/jobs/store/memory.js';
import type { JobRecord } from '../../../src/server/jobs/store/port.js';
import { silentLog } from '../../helpers/app.js';
import { postPinned } from '../../../src/server/webhooks/pinned-post.js';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { until } from '../../helpers/until.js';

const resolver = (table: Record<string, string[]>) => async (host: string) => table[host] ?? [];

async function refusal(p: WebhookPolicy, url: string): Promise<string | null> {
  try {
    await p.check(url);
    return null;
  } catch (e) {
    assert.ok(e instanceof WebhookRefused);
    return e.code;
  }
}

test('every resolved address must be public; WEBHOOK_ALLOW entries (names, addresses, CIDRs) open exceptions', async () => {
  const dns = resolver({
    'public.test': ['93.184.216.34', '2606:2800:220:1::1'],
    'mixed.test': ['93.184.216.34', '10.1.2.3'],
    'inside.test': ['172.20.0.5'],
    'v6local.test': ['fe80::1'],
    'nowhere.test': [],
  });
  const p = new WebhookPolicy([], dns);
  assert.equal(await refusal(p, 'https://public.test/x'), null);
  assert.equal(
    await refusal(p, 'https://mixed.test/x'),
    'webhook_not_allowed',
    'one private address is enough to refuse',
  );
  assert.equal(await refusal(p, 'https://inside.test/x'), 'webhook_not_allowed');
  assert.equal(await refusal(p, 'https://v6local.test/x'), 'webhook_not_allowed');
  assert.equal(await refusal(p, 'https://nowhere.test/x'), 'bad_webhook');
  assert.equal(await refusal(p, 'http://100.64.0.1/x'), 'webhook_not_allowed');
  assert.equal(await refusal(p, 'gopher://public.test/x'), 'bad_webhook');
  const allowed = new WebhookPolicy(['inside.test', '10.0.0.0/8', 'fe80::1'], dns);
  assert.equal(await refusal(allowed, 'https://inside.test/x'), null, 'a named host');
  assert.equal(await refusal(allowed, 'https://mixed.test/x'), null, 'a range');
  assert.equal(await refusal(allowed, 'https://v6local.test/x'), null, 'one address');
  assert.equal(await refusal(allowed, 'http://192.168.0.1/x'), 'webhook_not_allowed');
});

test('at delivery the host is checked again: a name that now resolves to loopback is not called, and the delivery is given up', async () => {
  const store = new MemoryJobStore();
  const rec: JobRecord = {
    job_id: '0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90',
    kind: 'frame',
    status: 'error',
    created_at: 1,
    completed_at: 2,
    source: 's',
    params: {},
    assets: {},
    message: 'x',
    code: null,
    webhook: { url: 'http://rebind.test/hook' },
  };
  await store.put(rec);
  const d = new WebhookDispatcher({
    store: locally(store),
    policy: new WebhookPolicy([], resolver({ 'rebind.test': ['127.0.0.1'] })),
    retryDelaysMs: [5],
    timeoutMs: 1000,
    maxConcurrent: 1,
    log: silentLog,
    now: Date.now,
  });
  d.ended(rec);
  let w = (await store.get(rec.job_id))!.webhook!;
  await until(
    () => `the delivery given up (webhook: ${JSON.stringify(w)})`,
    async () => (w = (await store.get(rec.job_id))!.webhook!).gave_up_at !== undefined,
    5_000,
  );
  assert.equal(w.attempts, 2);
  assert.equal(typeof w.gave_up_at, 'number');
  assert.equal(w.delivered_at, undefined);
  await d.close();
});

test('IPv6 forms that carry an IPv4 address are judged by the IPv4 inside: private inside is refused, public allowed', async () => {
  const p = new WebhookPolicy([], resolver({}));
  for (const url of [
    'http://[::127.0.0.1]/x', // IPv4-compatible, ::/96
    'http://[::7f00:1]/x',
    'http://[::ffff:10.0.0.1]/x', // mapped
    'http://[::ffff:0:192.168.1.1]/x', // translated
    'http://[2002:a9fe:a9fe::1]/x', // 6to4 of 169.254.169.254 (cloud metadata)
    'http://[2002:7f00:1::]/x', // 6to4 of 127.0.0.1
    'http://[64:ff9b::10.0.0.1]/x', // NAT64
    'http://[64:ff9b:1::a00:1]/x', // NAT64 local use
    'http://[2001:0:a9fe:a9fe::1]/x', // Teredo with 169.254.169.254 as its server
    'http://[2001:db8::5efe:10.0.0.1]/x', // ISATAP
  ])
    assert.equal(await refusal(p, url), 'webhook_not_allowed', url);
  for (const url of [
    'http://[::ffff:93.184.216.34]/x',
    'http://[2002:5db8:d822::1]/x',
    'http://[64:ff9b::5db8:d822]/x',
  ])
    assert.equal(await refusal(p, url), null, url);
  // WEBHOOK_ALLOW's IPv4 ranges open the same addresses in their IPv6 forms
  assert.equal(await refusal(new WebhookPolicy(['10.0.0.0/8'], resolver({})), 'http://[::ffff:10.0.0.1]/x'), null);
});

test('a delivery connects to the address the policy checked, not to a second resolution of the name', async () => {
  const hits: { host: string | undefined; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      hits.push({ host: req.headers.host, body });
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  try {
    // the name resolves only in the policy's (stubbed) resolver: the system's DNS has never heard of it, so a
    // connection that resolved it again would fail with ENOTFOUND instead of reaching the receiver
    const p = new WebhookPolicy(['127.0.0.1'], resolver({ 'hooks.invalid': ['127.0.0.1'] }));
    const { url, addresses } = await p.resolve(`http://hooks.invalid:${port}/done`);
    assert.deepEqual(addresses, ['127.0.0.1']);
    const res = await postPinned(
      url,
      addresses[0],
      { 'content-type': 'application/json' },
      '{"a":1}',
      AbortSignal.timeout(10_000),
    );
    assert.equal(res.status, 204);
    assert.deepEqual(hits, [{ host: `hooks.invalid:${port}`, body: '{"a":1}' }]);
  } finally {
    server.close();
  }
});
