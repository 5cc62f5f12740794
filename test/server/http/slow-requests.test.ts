// Slow request bodies (issue 10): a client that sends its request slower than REQUEST_TIMEOUT_MS allows is answered
// 408 and cut off; the service keeps answering everyone else meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startApp, FakeRenderer } from '../../helpers/app.js';

test(
  'a body sent too slowly: 408 and the connection closed; a complete request on time is served',
  { timeout: 30_000 },
  async () => {
    const t = await startApp({ renderer: new FakeRenderer(), config: { requestTimeoutMs: 1500 } });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as { port: number }).port;
      const sock = connect(port, '127.0.0.1');
      let answer = '';
      sock.on('data', (d) => (answer += d.toString()));
      const closed = new Promise<void>((r) => sock.on('close', () => r()));
      sock.write(
        'POST /v1/frame HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"source": "',
      );
      // a byte now and then, never the whole body
      const drip = setInterval(() => sock.writable && sock.write('a'), 200);
      await closed;
      clearInterval(drip);
      assert.match(answer, /^HTTP\/1\.1 408 /);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(ok.status, 200);
    } finally {
      await t.close();
    }
  },
);

/** Opens `n` sockets that each send half a request's headers, then a byte now and then (never the blank line). */
function trickleHeaders(port: number, n: number) {
  return Array.from({ length: n }, () => {
    const sock = connect(port, '127.0.0.1');
    let answer = '';
    sock.on('data', (d) => (answer += d.toString()));
    sock.on('error', () => {});
    const closed = new Promise<void>((r) => sock.on('close', () => r()));
    sock.write('POST /v1/frame HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const drip = setInterval(() => sock.writable && sock.write('a'), 200);
    return {
      closed: closed.then(() => clearInterval(drip)),
      answer: () => answer,
      destroy: () => (clearInterval(drip), sock.destroy()),
    };
  });
}

test(
  'half the headers, then a trickle: 408 and every such socket closed at HEADERS_TIMEOUT_MS; others are served meanwhile',
  { timeout: 60_000 },
  async () => {
    const t = await startApp({
      renderer: new FakeRenderer(),
      config: { requestTimeoutMs: 30_000, headersTimeoutMs: 1_500 },
    });
    const socks: ReturnType<typeof trickleHeaders> = [];
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as { port: number }).port;
      socks.push(...trickleHeaders(port, 50));
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(ok.status, 200);
      // each is closed by the server (the test bounds the wait, the server decides when)
      await Promise.all(socks.map((s) => s.closed));
      const answers = socks.map((s) => s.answer());
      assert.ok(
        answers.every((a) => /^HTTP\/1\.1 408 /.test(a)),
        answers.find((a) => !/^HTTP\/1\.1 408 /.test(a)),
      );
      assert.equal(t.app.server.headersTimeout, 1_500);
    } finally {
      socks.forEach((s) => s.destroy());
      await t.close();
    }
  },
);
