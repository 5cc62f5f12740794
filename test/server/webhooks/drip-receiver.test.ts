// WEBHOOK_CONCURRENCY bounds connections, not only requests (issue 32 row 10): a receiver that sends its status line
// and then drips its body for ever must not keep a connection open once the delivery's slot is free. On d7952b0 the
// slot was freed at the status line while the socket drained the body until WEBHOOK_TIMEOUT_MS, so every job's
// delivery was open at the receiver at once. The receiver counts its open sockets; nothing here depends on timing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { parseExposition, valueOf } from '../../helpers/prometheus.js';
import { until } from '../../helpers/until.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const CAP = 2;
const JOBS = 10;

/** Answers 200 at once, then writes one byte of body every 50 ms and never ends it; records sockets open at once. */
async function drippingReceiver() {
  let open = 0;
  let maxOpen = 0;
  const jobs: string[] = [];
  const drips = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      jobs.push(JSON.parse(Buffer.concat(chunks).toString('utf8')).job_id);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
      const drip = setInterval(() => res.write('.'), 50);
      drips.add(drip);
      res.on('close', () => {
        clearInterval(drip);
        drips.delete(drip);
      });
    });
  });
  server.on('connection', (socket) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    socket.on('close', () => open--);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    jobs,
    open: () => open,
    maxOpen: () => maxOpen,
    close: () =>
      new Promise<void>((r) => {
        for (const d of drips) clearInterval(d);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let t: TestApp | undefined;
let rx: Awaited<ReturnType<typeof drippingReceiver>> | undefined;
after(async () => {
  await t?.close();
  await rx?.close();
});

test(`WEBHOOK_CONCURRENCY=${CAP}: a receiver that drips its body never holds more than ${CAP} connections`, async () => {
  rx = await drippingReceiver();
  t = await startApp({
    renderer: new FakeRenderer(),
    // the attempt's time limit is far past the test: only the dispatcher can close a dripping connection in time
    config: { webhookAllow: ['127.0.0.0/8'], webhookTimeoutMs: 120_000, webhookConcurrency: CAP },
  });
  const app = t.app;
  const ids: string[] = [];
  for (let i = 0; i < JOBS; i++)
    ids.push((await post(app, '/v1/frame', { source: SRC, webhook: { url: rx.url } })).json().job_id as string);
  for (const id of ids) assert.equal((await waitJob(app, id)).json().status, 'ready');

  const delivered = async () =>
    valueOf(
      parseExposition((await app.inject({ method: 'GET', url: '/metrics' })).body),
      'cmrender_webhook_deliveries_total',
      {
        outcome: 'delivered',
      },
    );
  await until('every delivery recorded delivered', async () => (await delivered()) === JOBS);
  assert.deepEqual([...rx.jobs].sort(), [...ids].sort(), 'each job delivered once');
  assert.ok(rx.maxOpen() <= CAP, `at most ${CAP} connections open at once at the receiver, saw ${rx.maxOpen()}`);
  await until('no connection left open', () => rx!.open() === 0);
});
