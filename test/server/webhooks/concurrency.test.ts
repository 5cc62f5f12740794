// WEBHOOK_CONCURRENCY (issue 24): many jobs ending at once open at most that many outgoing deliveries; the others
// wait in line and every one is delivered once a slot frees. The receiver holds its answers, so what it records
// (requests open at once) is the dispatcher's doing, whatever the machine's speed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { parseExposition, valueOf } from '../../helpers/prometheus.js';
import { until } from '../../helpers/until.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const CAP = 3;

/** A receiver that answers only when told: it records how many requests it held open at once, and which jobs came. */
async function holdingReceiver() {
  const held: ServerResponse[] = [];
  const jobs: string[] = [];
  let open = 0;
  let maxOpen = 0;
  const server = createServer((req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    res.on('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      jobs.push(JSON.parse(Buffer.concat(chunks).toString('utf8')).job_id);
      held.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    jobs,
    held: () => held.length,
    maxOpen: () => maxOpen,
    /** answers the oldest held request 204 */
    release: () => held.shift()!.writeHead(204).end(),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let t: TestApp | undefined;
let rx: Awaited<ReturnType<typeof holdingReceiver>> | undefined;
after(async () => {
  await t?.close();
  await rx?.close();
});

test(`WEBHOOK_CONCURRENCY=${CAP}: ${CAP} deliveries at once, the next waits in line; none is lost`, async () => {
  rx = await holdingReceiver();
  t = await startApp({
    renderer: new FakeRenderer(),
    config: { webhookAllow: ['127.0.0.0/8'], webhookTimeoutMs: 60_000, webhookConcurrency: CAP },
  });
  const app = t.app;
  const metric = async (name: string) =>
    valueOf(parseExposition((await app.inject({ method: 'GET', url: '/metrics' })).body), name);
  const enqueue = async () =>
    (await post(app, '/v1/frame', { source: SRC, webhook: { url: rx!.url } })).json().job_id as string;

  // at the edge: as many jobs as the cap end, and all of their deliveries are open at the receiver together
  const ids: string[] = [];
  for (let i = 0; i < CAP; i++) ids.push(await enqueue());
  for (const id of ids) assert.equal((await waitJob(app, id)).json().status, 'ready');
  await until(`${CAP} held deliveries`, () => rx!.held() === CAP);
  assert.equal(await metric('cmrender_webhook_deliveries_in_flight'), CAP);
  assert.equal(await metric('cmrender_webhook_deliveries_waiting'), 0);

  // just past it: two more end; their deliveries wait in line while the receiver holds the first three
  ids.push(await enqueue(), await enqueue());
  for (const id of ids.slice(CAP)) assert.equal((await waitJob(app, id)).json().status, 'ready');
  await until('two deliveries in line', async () => (await metric('cmrender_webhook_deliveries_waiting')) === 2);
  assert.equal(await metric('cmrender_webhook_deliveries_in_flight'), CAP);
  assert.equal(rx.jobs.length, CAP, 'the receiver saw only the first three');

  // each answer frees a slot for the next in line, first due first sent
  rx.release();
  await until('the fourth delivery', () => rx!.jobs.length === CAP + 1);
  assert.equal(rx.jobs[CAP], ids[CAP]);
  await until('every delivery answered', () => {
    if (rx!.held() > 0) rx!.release();
    return rx!.jobs.length === ids.length && rx!.held() === 0;
  });
  await until('every delivery recorded', async () => (await metric('cmrender_webhook_deliveries_in_flight')) === 0);

  assert.equal(rx.maxOpen(), CAP, 'never more than the cap open at once');
  assert.deepEqual([...rx.jobs].sort(), [...ids].sort(), 'each job delivered exactly once');
  const samples = parseExposition((await app.inject({ method: 'GET', url: '/metrics' })).body);
  assert.equal(valueOf(samples, 'cmrender_webhook_deliveries_total', { outcome: 'delivered' }), ids.length);
  assert.equal(valueOf(samples, 'cmrender_webhook_deliveries_waiting'), 0);
});
