// A bucket that accepts connections and never answers (issue 32 row 6). The service's endpoint is a TCP server of
// this test on loopback: while "up" it pipes every connection to a real S3-compatible server (s3rver), while "hung"
// it accepts each new connection and never writes a byte. On d7952b0 the SDK only logged a warning past its request
// timeout, so an output GET and a frame POST naming an asset had no answer at all; now each storage operation has a
// total deadline and both answer 503 storage_unavailable, and /readyz says the bucket is unavailable.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { FakeRenderer, multipart, ownExampleImage, startApp, type TestApp } from '../../helpers/app.js';
import { post, runJob } from '../../helpers/job-client.js';
import { TestS3 } from '../../helpers/s3.js';

/** Generous against a loaded machine; the deadline below is 2 s and a hung request used to have no bound at all. */
const ANSWER_WITHIN_MS = 30_000;

/** Pipes to `target` while up; while hung, holds every new connection open and silent. */
async function switchableEndpoint(targetPort: number) {
  let hung = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (hung) return; // accepted, read, never answered
    const upstream = createConnection(targetPort, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    /** from now on nothing answers; the kept-alive connections are cut so the client must open new (silent) ones */
    hang() {
      hung = true;
      for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

let s3: TestS3;
let ep: Awaited<ReturnType<typeof switchableEndpoint>>;
let t: TestApp;

before(async () => {
  s3 = await TestS3.start();
  ep = await switchableEndpoint(s3.port);
  const storage = s3.useInProcess('hung');
  process.env.AWS_ENDPOINT_URL_S3 = ep.endpoint;
  t = await startApp({
    renderer: new FakeRenderer(),
    config: { ...storage, storageRequestTimeoutMs: 500, storageDeadlineMs: 2_000 },
  });
});
after(async () => {
  await t?.close();
  await ep?.close();
  await s3?.close();
});

async function timed<T>(what: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await what();
  return { value, ms: Date.now() - start };
}

// the test's own limit makes a request with no answer (d7952b0) a failure, not a hung run
test(
  'a hung bucket: an output GET and a frame POST naming an asset answer 503 storage_unavailable; /readyz says so',
  { timeout: 3 * ANSWER_WITHIN_MS + 30_000 },
  async () => {
    // while the bucket answers: an asset is uploaded and a frame is ready, its output served
    const up = await t.app.inject({
      method: 'POST',
      url: '/v1/assets',
      ...multipart([{ name: 'f', filename: 'a.png', type: 'image/png', data: ownExampleImage('sunset.png') }]),
    });
    assert.equal(up.statusCode, 200, up.body);
    const key = up.json().assets['a.png'] as string;
    const job = (
      await runJob(t.app, '/v1/frame', { source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n' })
    ).json();
    assert.equal(job.status, 'ready');
    assert.equal((await t.app.inject({ url: job.url })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/readyz' })).statusCode, 200);

    ep.hang();

    const out = await timed(() => t.app.inject({ url: job.url }));
    assert.equal(out.value.statusCode, 503, out.value.body);
    assert.equal(out.value.json().code, 'storage_unavailable');
    assert.ok(out.ms < ANSWER_WITHIN_MS, `the output GET answered after ${out.ms} ms`);

    const frame = await timed(() =>
      post(t.app, '/v1/frame', {
        source:
          'runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  compose [image("/img/a.png").fit(cover)]\n}\n',
        assets: { '/img/a.png': key },
      }),
    );
    assert.equal(frame.value.statusCode, 503, frame.value.body);
    assert.equal(frame.value.json().code, 'storage_unavailable');
    assert.ok(frame.ms < ANSWER_WITHIN_MS, `the frame POST answered after ${frame.ms} ms`);

    const ready = await timed(() => t.app.inject({ url: '/readyz' }));
    assert.equal(ready.value.statusCode, 503, ready.value.body);
    assert.equal(ready.value.json().code, 'storage_unavailable');
    assert.ok(ready.ms < ANSWER_WITHIN_MS, `/readyz answered after ${ready.ms} ms`);
  },
);
