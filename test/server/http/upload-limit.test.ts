// UPLOAD_MAX_BYTES and the per-file limit are enforced as the bytes arrive (issue 24): a 1 GiB upload is answered
// once its declared length or its bytes pass the limit, and the rest is never read. Before, @fastify/multipart read
// (and dropped) every byte past a file's limit: a declared 1 GiB body was answered after all 1,078,329,439 bytes had
// been sent, and a chunked one never (3.3 GB sent in 9 s, no answer). The client here counts what it managed to
// send when the answer came: the server's buffers and the kernel's (up to tens of MiB on loopback) bound it, far
// below the gigabyte; no assertion depends on how long anything took.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startApp, FakeRenderer, multipart, type TestApp } from '../../helpers/app.js';
import { encodePng } from '../../../src/render/png.js';
import { LIMITS } from '../../../src/contract/limits.js';
import { until } from '../../helpers/until.js';

const GiB = 2 ** 30;
const MiB = 2 ** 20;
/** what the socket buffers of a loopback connection can hold between the client's writes and the server's reads */
const BUFFERS = 64 * MiB;
const PNG = encodePng(new Uint8Array(4 * 4 * 4).fill(255), 4, 4);
/** the boundary of the tests' multipart helper, so its bodies can be sent raw */
const BOUNDARY = '----cmrender-test-boundary-7f3a9c';
const FILE_HEAD = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
);

const apps: TestApp[] = [];
after(async () => {
  // a raw client the server stopped reading leaves its connection open and idle: close() would wait on it for ever
  for (const a of apps) a.app.server.closeAllConnections();
  for (const a of apps) await a.close();
});
async function listening(config: Parameters<typeof startApp>[0]['config']) {
  const t = await startApp({ renderer: new FakeRenderer(), config });
  apps.push(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, port: (t.app.server.address() as { port: number }).port };
}

interface RawAnswer {
  status: number;
  head: string;
  body: string;
  /** body bytes the client had written when the first byte of the answer arrived */
  sentAtAnswer: number;
  /** the server closed the connection */
  closed: boolean;
}

/**
 * POSTs /v1/assets over a raw socket. `body` is sent whole; `endless` sends FILE_HEAD and then 64 KiB of file bytes
 * at a time, as fast as the socket takes them, until the answer comes (or 1 GiB). `length` declares a Content-Length;
 * without it the body is chunked.
 */
async function rawUpload(port: number, o: { body?: Buffer; endless?: boolean; length?: number }): Promise<RawAnswer> {
  const sock = connect(port, '127.0.0.1');
  sock.on('error', () => {}); // the server closes while the client still writes: EPIPE, ECONNRESET
  const got: Buffer[] = [];
  let sent = 0;
  let sentAtAnswer = -1;
  let closed = false;
  sock.on('data', (d: Buffer) => {
    if (sentAtAnswer < 0) sentAtAnswer = sent;
    got.push(d);
  });
  const closing = new Promise<void>((r) => sock.on('close', () => ((closed = true), r())));
  const chunked = o.length === undefined;
  const frame = (b: Buffer) =>
    chunked ? Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]) : b;
  sock.write(
    `POST /v1/assets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
      (chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${o.length}\r\n`) +
      '\r\n',
  );
  const write = async (b: Buffer) => {
    if (closed) return;
    sent += b.length;
    if (!sock.write(frame(b))) await Promise.race([new Promise((r) => sock.once('drain', r)), closing]);
  };
  if (o.endless) {
    await write(FILE_HEAD);
    const bytes = Buffer.alloc(64 * 1024, 0x41);
    while (!closed && sentAtAnswer < 0 && sent < GiB) await write(bytes);
  } else {
    await write(o.body!);
    if (chunked && !closed) sock.write('0\r\n\r\n');
  }
  await closing;
  const text = Buffer.concat(got).toString('latin1');
  const [head, body = ''] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), head, body, sentAtAnswer, closed };
}

/** A multipart body of one PNG file padded to exactly `size` bytes. */
function bodyOf(size: number): Buffer {
  const empty = multipart([{ name: 'f', filename: 'big.png', type: 'image/png', data: PNG }]).payload;
  const data = Buffer.alloc(PNG.length + size - empty.length);
  PNG.copy(data);
  const m = multipart([{ name: 'f', filename: 'big.png', type: 'image/png', data }]);
  assert.equal(m.payload.length, size);
  assert.match(m.headers['content-type'], new RegExp(BOUNDARY));
  return m.payload;
}

test('a declared 1 GiB upload: 413 upload_too_large before its body is read, the connection closed, the slot given back', async (c) => {
  const max = 2 * MiB;
  const { t, port } = await listening({ uploadMaxBytes: max, maxConcurrentUploads: 1 });
  const r = await rawUpload(port, { endless: true, length: GiB });
  c.diagnostic(`bytes sent when the answer came: ${r.sentAtAnswer}`);
  assert.equal(r.status, 413, r.head);
  assert.deepEqual(JSON.parse(r.body), { error: `the upload is larger than ${max} bytes`, code: 'upload_too_large' });
  assert.match(r.head, /\r\nconnection: close/i);
  assert.ok(r.closed);
  assert.ok(r.sentAtAnswer >= 0 && r.sentAtAnswer < BUFFERS, `answered after ${r.sentAtAnswer} bytes were sent`);
  // the one upload slot is free again: an upload that fits is stored
  const m = multipart([{ name: 'f', filename: 'a.png', data: PNG }]);
  const ok = await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
  assert.equal(ok.statusCode, 200, ok.body);
});

test('a chunked upload with no length: 413 the moment its bytes pass UPLOAD_MAX_BYTES; the rest is not read', async (c) => {
  const max = 2 * MiB;
  const { t, port } = await listening({ uploadMaxBytes: max, maxConcurrentUploads: 1 });
  const r = await rawUpload(port, { endless: true });
  c.diagnostic(`bytes sent when the answer came: ${r.sentAtAnswer}`);
  assert.equal(r.status, 413, r.head);
  assert.equal(JSON.parse(r.body).code, 'upload_too_large');
  assert.ok(r.closed);
  assert.ok(r.sentAtAnswer > max && r.sentAtAnswer < max + BUFFERS, `answered after ${r.sentAtAnswer} bytes were sent`);
  // the slot goes back once the parser has let go of the cut body (when the connection closed)
  const m = multipart([{ name: 'f', filename: 'a.png', data: PNG }]);
  let ok: Awaited<ReturnType<typeof t.app.inject>> | undefined;
  await until(
    'the upload slot back',
    async () =>
      (ok = await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers }))
        .statusCode !== 503,
    5_000,
  );
  assert.equal(ok?.statusCode, 200, ok?.body);
});

test('one file past 25 MiB in an endless body: 400 file_too_large as soon as it passes, not after the body', async (c) => {
  const { port } = await listening({});
  const r = await rawUpload(port, { endless: true });
  c.diagnostic(`bytes sent when the answer came: ${r.sentAtAnswer}`);
  assert.equal(r.status, 400, r.head);
  assert.deepEqual(JSON.parse(r.body), {
    error: `a file is larger than ${LIMITS.assets.maxFileBytes} bytes`,
    code: 'file_too_large',
  });
  assert.match(r.head, /\r\nconnection: close/i);
  assert.ok(r.closed);
  const max = LIMITS.assets.maxFileBytes;
  assert.ok(r.sentAtAnswer > max && r.sentAtAnswer < max + BUFFERS, `answered after ${r.sentAtAnswer} bytes were sent`);
});

test('UPLOAD_MAX_BYTES at its edge: a body of exactly the limit is stored, one byte more is 413 (declared or chunked)', async () => {
  const max = 256 * 1024;
  const { port } = await listening({ uploadMaxBytes: max });
  for (const length of [max, undefined]) {
    const at = await rawUpload(port, { body: bodyOf(max), length: length === undefined ? undefined : max });
    assert.equal(at.status, 200, `${length ? 'declared' : 'chunked'}: ${at.head}\n${at.body}`);
    assert.match(JSON.parse(at.body).assets['big.png'], /^asset_[0-9a-f]{32}$/);
    const past = await rawUpload(port, { body: bodyOf(max + 1), length: length === undefined ? undefined : max + 1 });
    assert.equal(past.status, 413, `${length ? 'declared' : 'chunked'}: ${past.head}`);
    assert.equal(JSON.parse(past.body).code, 'upload_too_large');
  }
});
