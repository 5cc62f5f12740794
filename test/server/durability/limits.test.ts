// Resource bounds: the queue cap (503 queue_full + retry-after), the output disk budget (oldest unprotected outputs
// go; storage_full when every byte is held by a young job), the concurrent upload cap, and memory across hundreds
// of jobs through the durable store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedLine, startApp, FakeRenderer, gate, multipart } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { PNG } from 'pngjs';
import { until } from '../../helpers/until.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const FRAME = { source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n', params: { width: 16, height: 16 } };
const H = 60 * 60 * 1000;

test('a full queue answers 503 with the ErrorEnvelope and retry-after; it admits again once jobs finish', async () => {
  const r = new FakeRenderer();
  const g = gate();
  r.behaviour = () => g.promise;
  const t = await startApp({ renderer: r, config: { maxQueuedJobs: 3 } });
  try {
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const a = await post(t.app, '/v1/frame', FRAME);
      assert.equal(a.statusCode, 202);
      ids.push(a.json().job_id);
    }
    for (const url of ['/v1/frame', '/v1/render']) {
      const full = await post(t.app, url, FRAME);
      assert.equal(full.statusCode, 503);
      assert.deepEqual(Object.keys(full.json()).sort(), ['code', 'error']);
      assert.equal(full.json().code, 'queue_full');
      assert.match(full.headers['retry-after'] as string, /^\d+$/);
      assert.ok(Number(full.headers['retry-after']) >= 1);
      assert.equal(full.headers['access-control-allow-origin'], '*');
    }
    // an invalid body is still a 400, not a 503: validation comes first
    assert.equal((await post(t.app, '/v1/frame', {})).statusCode, 400);
    g.open();
    for (const id of ids) assert.equal((await waitJob(t.app, id)).json().status, 'ready');
    assert.equal((await post(t.app, '/v1/frame', FRAME)).statusCode, 202);
  } finally {
    g.open();
    await t.close();
  }
});

test('the output disk budget: over it, the oldest outputs of jobs older than 24 h go; young ones are never evicted and a job that would pass it ends storage_full', async () => {
  let now = Date.now();
  const r = new FakeRenderer();
  // each output is a 16x16 PNG of ~100 bytes; the budget holds about three
  const one = PNG.sync.write(
    Object.assign(new PNG({ width: 16, height: 16 }), { data: Buffer.alloc(16 * 16 * 4, 200) }),
  ).length;
  const t = await startApp({
    renderer: r,
    now: () => now,
    config: { outputMaxBytes: one * 3 + 10, retentionMs: 72 * H },
  });
  try {
    const run = async () => {
      const a = await post(t.app, '/v1/frame', FRAME);
      assert.equal(a.statusCode, 202, a.body);
      const v = (await waitJob(t.app, a.json().job_id)).json();
      assert.equal(v.status, 'ready', JSON.stringify(v));
      return v;
    };
    const old1 = await run();
    now += H;
    const old2 = await run();
    now += 30 * H; // old1 and old2 are now older than 24 h (kept by the 72 h retention)
    const young1 = await run();
    const young2 = await run(); // 4 outputs > budget: old1 (the oldest) goes
    assert.equal((await t.app.inject({ url: `/v1/jobs/${old1.job_id}` })).statusCode, 404);
    assert.equal((await t.app.inject({ url: old1.url })).statusCode, 404);
    assert.equal((await t.app.inject({ url: `/v1/jobs/${old2.job_id}` })).statusCode, 200);
    const young3 = await run(); // over again: old2 goes
    assert.equal((await t.app.inject({ url: `/v1/jobs/${old2.job_id}` })).statusCode, 404);
    const outputs = join(t.dataDir, 'outputs');
    const total = () => readdirSync(outputs).reduce((s, f) => s + statSync(join(outputs, f)).size, 0);
    assert.ok(total() <= one * 3 + 10, `outputs take ${total()} bytes`);
    // now every byte is held by a job younger than 24 h: one more output would pass the budget and nothing may go, so
    // it is not stored (one job cannot pass the budget) and its job ends storage_full; the young outputs stay
    const a = await post(t.app, '/v1/frame', FRAME);
    assert.equal(a.statusCode, 202, a.body);
    const over = (await waitJob(t.app, a.json().job_id)).json();
    assert.equal(over.status, 'error', JSON.stringify(over));
    assert.equal(over.code, 'storage_full');
    assert.ok(total() <= one * 3 + 10, `outputs take ${total()} bytes`);
    for (const v of [young1, young2, young3]) {
      assert.equal((await t.app.inject({ url: v.url })).statusCode, 200, 'a young output is never evicted');
      assert.ok(existsSync(join(outputs, v.url.split('/').pop())));
    }
    // a day later the young ones are old enough to go: the next render makes room and is stored
    now += 25 * H;
    const later = await run();
    assert.equal((await t.app.inject({ url: later.url })).statusCode, 200);
    // the three were written at one moment of the test's clock: one of them (the first by name) made the room
    const gone = [];
    for (const v of [young1, young2, young3])
      if ((await t.app.inject({ url: `/v1/jobs/${v.job_id}` })).statusCode === 404) gone.push(v.job_id);
    assert.equal(gone.length, 1, `went: ${gone.join(', ')}`);
    assert.ok(total() <= one * 3 + 10, `outputs take ${total()} bytes`);
  } finally {
    await t.close();
  }
});

test('concurrent uploads are capped: one more answers 503 too_many_uploads; after they finish uploads work again', async () => {
  const t = await startApp({ renderer: new FakeRenderer(), config: { maxConcurrentUploads: 2 } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (t.app.server.address() as { port: number }).port;
  const png = PNG.sync.write(Object.assign(new PNG({ width: 4, height: 4 }), { data: Buffer.alloc(64, 255) }));
  const m = multipart([{ name: 'f', filename: 'a.png', data: png }]);
  // two uploads that send their headers and half their body, then stall; `arrived` counts the requests the server
  // has read the headers of
  let arrived = 0;
  t.app.server.on('request', (req: { url?: string }) => void (req.url === '/v1/assets' && arrived++));
  const stalled = [0, 1].map(() => {
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/assets',
      headers: { ...m.headers, 'content-length': m.payload.length },
    });
    const answer = new Promise<number>((res, rej) => {
      req.on('response', (r) => {
        r.resume();
        r.on('end', () => res(r.statusCode!));
      });
      req.on('error', rej);
    });
    req.write(m.payload.subarray(0, 60));
    return { req, answer };
  });
  try {
    // both stalled uploads are inside the handler (holding the gate) a moment after the server has their headers: a
    // third upload is refused from then on (one that came before them is accepted: a whole upload, it never stalls,
    // and it would take a slot from a stalled one, so none is made before they arrived)
    await until(
      () => `both stalled uploads to arrive (${arrived} did)`,
      () => arrived >= 2,
      10_000,
    );
    const upload = () => t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
    let third: Awaited<ReturnType<typeof upload>> | undefined;
    await until(
      () => `a third upload refused (last: ${third ? `${third.statusCode} ${third.body.slice(0, 200)}` : 'none'})`,
      async () => (third = await upload()).statusCode !== 200,
      10_000,
    );
    assert.ok(third);
    assert.equal(third.statusCode, 503, third.body);
    assert.equal(third.json().code, 'too_many_uploads');
    assert.ok(Number(third.headers['retry-after']) >= 1);
    for (const s of stalled) s.req.end(m.payload.subarray(60));
    assert.deepEqual(await Promise.all(stalled.map((s) => s.answer)), [200, 200]);
    const again = await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
    assert.equal(again.statusCode, 200);
  } finally {
    for (const s of stalled) s.req.destroy();
    await t.close();
  }
});

test(
  'memory does not grow across hundreds of jobs: ended records drop their sources, and once expired nothing of 400 jobs is left on the heap',
  { timeout: 120_000 },
  async () => {
    const r = new FakeRenderer();
    let now = Date.now();
    const t = await startApp({ renderer: r, now: () => now });
    // 32 KiB sources: a job retained anywhere (a closure, a map, the queue) would show as megabytes
    const big = { ...FRAME, source: `${FRAME.source}// ${'x'.repeat(32 * 1024)}\n` };
    try {
      const post400 = async (n: number) => {
        const ids: string[] = [];
        for (let i = 0; i < n; i++) {
          const a = await post(t.app, '/v1/frame', { ...big, source: big.source + `// ${i}\n` });
          assert.equal(a.statusCode, 202);
          ids.push(a.json().job_id);
        }
        return ids;
      };
      const finish = async (ids: string[]) => {
        for (const id of ids) assert.equal((await waitJob(t.app, id)).json().status, 'ready');
        r.calls.length = 0; // the fake renderer's own call log is not the service's memory
      };
      const batch = async (n: number) => finish(await post400(n));
      const expireAll = async () => {
        now += 25 * H;
        await t.app.retention.sweep();
      };
      const heap = () => {
        gc();
        gc();
        return process.memoryUsage().heapUsed;
      };
      await batch(100);
      await expireAll();
      const h0 = heap();
      // 400 jobs held pending: their records hold their sources (the measure sees them)
      let release = () => {};
      const gate = new Promise<void>((res) => (release = res));
      r.behaviour = () => gate;
      const ids = await post400(400);
      const h1 = heap();
      assert.ok(h1 - h0 > 400 * 32 * 1024 * 0.9, 'the pending records hold their sources (the measure sees them)');
      release();
      await finish(ids);
      r.behaviour = null;
      const hEnded = heap();
      assert.ok(
        hEnded - h0 < 400 * 32 * 1024 * 0.2,
        `ended records keep no source: the heap holds ${hEnded - h0} bytes for 400 ended jobs`,
      );
      await expireAll();
      const h2 = heap();
      assert.equal(embeddedLine(t.app).size, 0);
      assert.equal(readdirSync(join(t.dataDir, 'outputs')).length, 0);
      console.log(`heap: ${h0} -> ${h1} with 400 pending -> ${hEnded} ended -> ${h2} after expiry`);
      assert.ok(
        h2 - h0 < 2 * 1024 * 1024,
        `heap grew ${h2 - h0} bytes over 400 jobs (${h0} -> ${h1} with records -> ${h2} after expiry)`,
      );
    } finally {
      await t.close();
    }
  },
);
