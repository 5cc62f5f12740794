// MAX_CONNECTIONS (issue 55): the server holds at most that many connections and closes a new one at once past it;
// by default the cap is the open-file limit less the files kept for the work (the journal, outputs, Chromium).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startApp, FakeRenderer } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';
import { connectionCap, openFileLimit, RESERVED_FILES } from '../../../src/server/http/connection-cap.js';

const LIMITS_TEXT = (soft: string) =>
  `Limit                     Soft Limit           Hard Limit           Units\nMax processes             63459                63459                processes\nMax open files            ${soft}                 524288               files\n`;

test('the default cap is the soft open-file limit less the reserve; a set MAX_CONNECTIONS wins; unknown: no cap', () => {
  assert.equal(openFileLimit(LIMITS_TEXT('1024')), 1024);
  assert.equal(openFileLimit(LIMITS_TEXT('unlimited')), undefined);
  assert.equal(openFileLimit('no such line'), undefined);
  assert.equal(connectionCap(0, 1024), 1024 - RESERVED_FILES);
  assert.equal(connectionCap(0, RESERVED_FILES + 1), 1);
  assert.equal(connectionCap(0, RESERVED_FILES), 1, 'never 0 (Node would take that as no cap)');
  assert.equal(connectionCap(0, undefined), undefined);
  assert.equal(connectionCap(50, 1024), 50);
  // this process, on Linux: its own limit as the kernel says it
  if (process.platform === 'linux') assert.ok(Number.isInteger(openFileLimit()), String(openFileLimit()));
});

/** Opens a socket and resolves once it is connected, with what it was answered when it closes. */
function open(port: number): Promise<{ sock: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let answer = '';
    sock.on('data', (d) => (answer += d.toString()));
    sock.on('error', () => {});
    const closed = new Promise<string>((r) => sock.on('close', () => r(answer)));
    sock.once('connect', () => resolve({ sock, closed }));
    sock.once('error', reject);
  });
}

test('MAX_CONNECTIONS=2: two connections are held, a third is closed unanswered, and once one goes a new one is served', async () => {
  const t = await startApp({ renderer: new FakeRenderer(), config: { maxConnections: 2 } });
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    const a = await open(port);
    const b = await open(port);
    // both are held: each is answered once it sends its request
    a.sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => a.sock.once('data', r));
    const third = await open(port);
    third.sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(await third.closed, '', 'the third connection is closed without an answer');
    b.sock.destroy();
    await b.closed;
    // the server counts b gone once it has seen the close: a new connection is served from then on
    let served = '';
    await until(
      () => `a new connection served (last answer: '${served.slice(0, 40)}')`,
      async () => {
        const c = await open(port);
        c.sock.end('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        served = await c.closed;
        return served.startsWith('HTTP/1.1 200');
      },
      10_000,
    );
    assert.match(served, /^HTTP\/1\.1 200 /);
    a.sock.destroy();
  } finally {
    await t.close();
  }
});
