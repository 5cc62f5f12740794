// Row 7 of issue 32: GET /v1/assets/{key} read the whole asset (up to 25 MiB) into memory per request, with no cap
// on reads in flight: 60 GETs of a 25 MB asset whose clients read nothing took the API's RSS up by 545 to 735 MB.
// Now the asset is streamed from the storage: against the real service as a child process, 60 such GETs (each
// socket reads its first chunk, the status line and headers, then stops reading) grow the API's peak RSS (VmHWM,
// /proc/PID/status) by less than BOUND_MB; a full read still gives the exact bytes, a single range its exact slice,
// a range past the end 416, and HEAD the length.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess } from '../../helpers/service-process.js';
import { until } from '../../helpers/until.js';
import { encodePng } from '../../../src/render/png.js';

/** 60 non-reading GETs may grow the API's peak RSS by this much (d7952b0: +545 to +735 MB). */
const BOUND_MB = 120;
const CLIENTS = 60;

let s: ServiceProcess;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmrender-asset-stream-'));
  // a loaded machine (load 30 and more) can take over a minute to warm a service up
  s = await ServiceProcess.start(dir, {}, 180_000);
});
after(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A valid PNG of about 25 MB: 8x8 pixels and then random bytes in a private ancillary chunk, which readers skip. */
function largePng(): Buffer {
  const small = encodePng(new Uint8Array(8 * 8 * 4).fill(255), 8, 8);
  const iend = small.length - 12;
  const data = randomBytes(25 * 1024 * 1024 - small.length - 12 - 1024);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write('prVt', 4, 'latin1');
  return Buffer.concat([small.subarray(0, iend), head, data, Buffer.alloc(4), small.subarray(iend)]);
}

test(
  `${CLIENTS} GETs of a 25 MB asset that read nothing keep the API's RSS bounded; reads, ranges and HEAD are exact`,
  {
    timeout: 180_000,
  },
  async () => {
    const bytes = largePng();
    const form = new FormData();
    form.append('f', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'big.png');
    const up = await fetch(`http://127.0.0.1:${s.port}/v1/assets`, { method: 'POST', body: form });
    assert.equal(up.status, 200, await up.clone().text());
    const key = ((await up.json()) as { assets: Record<string, string> }).assets['big.png'];
    const path = `/v1/assets/${key}`;

    const baseline = s.peakRss();
    const sockets: Socket[] = [];
    const started: boolean[] = [];
    try {
      for (let i = 0; i < CLIENTS; i++) {
        const sock = connect(s.port, '127.0.0.1');
        sock.on('error', () => {});
        // the first chunk (status line and headers) is taken, then nothing more is read
        sock.once('data', (d: Buffer) => {
          assert.match(d.toString('latin1', 0, 12), /^HTTP\/1\.1 200/);
          started[i] = true;
          sock.pause();
        });
        sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        sockets.push(sock);
      }
      await until('every GET to start answering', () => started.filter(Boolean).length === CLIENTS, 60_000);
      const grew = s.peakRss() - baseline;
      console.log(`API peak RSS ${Math.round(baseline / 2 ** 20)} -> ${Math.round(s.peakRss() / 2 ** 20)} MB`);
      assert.ok(grew < BOUND_MB * 2 ** 20, `grew ${Math.round(grew / 2 ** 20)} MB with ${CLIENTS} GETs in flight`);
    } finally {
      for (const sock of sockets) sock.destroy();
    }

    // a full read is the exact bytes
    const full = await fetch(`http://127.0.0.1:${s.port}${path}`);
    assert.equal(full.status, 200);
    assert.equal(full.headers.get('content-type'), 'image/png');
    assert.equal(full.headers.get('content-length'), String(bytes.length));
    assert.equal(sha(Buffer.from(await full.arrayBuffer())), sha(bytes));
    // a single range is its exact slice; past the end, 416 with the size
    const part = await fetch(`http://127.0.0.1:${s.port}${path}`, { headers: { range: 'bytes=1000-1999999' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 1000-1999999/${bytes.length}`);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(1000, 2_000_000));
    const tail = await fetch(`http://127.0.0.1:${s.port}${path}`, { headers: { range: 'bytes=-10' } });
    assert.equal(tail.status, 206);
    assert.deepEqual(Buffer.from(await tail.arrayBuffer()), bytes.subarray(bytes.length - 10));
    const past = await fetch(`http://127.0.0.1:${s.port}${path}`, { headers: { range: `bytes=${bytes.length}-` } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), `bytes */${bytes.length}`);
    assert.equal(((await past.json()) as { code: string }).code, 'range_not_satisfiable');
    const head = await fetch(`http://127.0.0.1:${s.port}${path}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(bytes.length));
    // an unknown key is still 404
    assert.equal((await fetch(`http://127.0.0.1:${s.port}/v1/assets/asset_${'0'.repeat(32)}`)).status, 404);
  },
);
