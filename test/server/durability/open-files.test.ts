// Out of open files (issue 55, row 10): the service started under the usual 1,024 open-file limit, and 1,100
// connections that each send half a request line and then wait. Before, a periodic memory read
// (@fastify/under-pressure's process.memoryUsage(), which opens /proc) threw EMFILE uncaught from its timer and the
// process exited within seconds; every request after was refused. Now the half-open connections are cut at
// REQUEST_TIMEOUT_MS (408), the process holds at most MAX_CONNECTIONS (by default the limit less 256: the files a
// job needs stay free) and closes the others at the door, and it keeps answering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess } from '../../helpers/started-process.js';
import { RESERVED_FILES } from '../../../src/server/http/connection-cap.js';

const LIMIT = 1_024;
const CONNECTIONS = 1_100;

/** Opens `n` sockets that each send half a request line and wait; each settles with what it was answered once closed. */
function halfOpen(port: number, n: number) {
  return Array.from({ length: n }, () => {
    const sock = connect(port, '127.0.0.1');
    let answer = '';
    // read, so the server's close is seen (a paused socket never ends)
    sock.on('data', (d) => (answer += d.toString()));
    sock.on('error', () => {});
    const closed = new Promise<string>((r) => sock.on('close', () => r(answer)));
    sock.write('GET /heal');
    return { closed, destroy: () => sock.destroy() };
  });
}

test(
  `${CONNECTIONS} half-open connections under a ${LIMIT}-file limit: cut at REQUEST_TIMEOUT_MS, the process lives and answers`,
  { timeout: 180_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cmrender-open-files-'));
    const api = await startProcess(
      'api',
      { DATA_DIR: dir, REQUEST_TIMEOUT_MS: '4000', HEADERS_TIMEOUT_MS: '4000' },
      90_000,
      { maxOpenFiles: LIMIT },
    );
    let exit: string | undefined;
    api.proc.on('exit', (code, signal) => (exit = `exited (${code ?? signal})`));
    const socks = halfOpen(Number(new URL(api.url!).port), CONNECTIONS);
    try {
      // the server decides when each closes (its timeout, or at the door); the test's timeout bounds the wait
      const answers = await Promise.all(socks.map((s) => s.closed));
      assert.equal(exit, undefined, 'the service is still running');
      const cut = answers.filter((a) => /^HTTP\/1\.1 408 /.test(a)).length;
      // at most the cap was held (before: 994, every file the process had), and every one held was answered 408
      assert.ok(cut <= LIMIT - RESERVED_FILES, `${cut} connections were held, past the cap ${LIMIT - RESERVED_FILES}`);
      assert.ok(cut > LIMIT / 2, `only ${cut} connections were held and cut`);
      assert.ok(
        answers.every((a) => a === '' || /^HTTP\/1\.1 408 /.test(a)),
        answers.find((a) => a !== '' && !/^HTTP\/1\.1 408 /.test(a)),
      );
      const health = await fetch(`${api.url}/healthz`);
      assert.equal(health.status, 200);
      const check = await fetch(`${api.url}/v1/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ source: 'runner "0.0.3";' }),
      });
      assert.equal(check.status, 200, await check.text());
      assert.equal(exit, undefined, 'the service is still running');
      const fatal = api.lines.filter((l) => Number(l.level) >= 60);
      assert.deepEqual(fatal, []);
      assert.ok(
        api.lines.some((l) => l.event === 'connections_refused' && l.max_connections === LIMIT - RESERVED_FILES),
        'the refusals at the cap are logged',
      );
    } finally {
      socks.forEach((s) => s.destroy());
      await api.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
