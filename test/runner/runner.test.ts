// The standalone runner as a user starts it (its own process, `src/entry/runner.ts`, real Chromium and ffmpeg): files
// of each kind, the 400 envelope, the 500 {error, code} of every error example (../shared/examples/errors, skipped
// by name without the corpus) and of our own broken sources, a few hundred seeded fuzzed bodies and an abandoned
// request; afterwards /healthz still answers `ok\n` from the same process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { probe } from '../../src/render/ffmpeg/probe.js';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ownExample, ownExampleImage, corpusSkip } from '../helpers/app.js';
import { examplesDir } from '../helpers/shared.js';
import { LONG_SLIDE } from '../helpers/video.js';
import { spawnService } from '../helpers/service-spawn.js';
import { until } from '../helpers/until.js';
import { ffmpegProcesses } from '../helpers/service-process.js';

const HEADERS_MS = 2_000;
const LARGE_BODIES = 2;
let child: ChildProcess;
let base = '';
let exited: number | null | undefined;

before(async () => {
  child = spawnService('runner', {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    RENDER_CONCURRENCY: '1',
    HEADERS_TIMEOUT_MS: String(HEADERS_MS),
    MAX_CONCURRENT_UPLOADS: String(LARGE_BODIES),
  });
  child.on('exit', (code) => (exited = code));
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`runner did not start: ${out.slice(-2000)}`)), 120_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /"address":"(http:\/\/[^"]+)"[^\n]*"event":"runner_listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr!.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`runner exited (${code}): ${out.slice(-2000)}`)));
  });
});

after(() => {
  child.kill('SIGTERM');
});

async function run(body: unknown): Promise<{ status: number; type: string; bytes: Buffer }> {
  const res = await fetch(`${base}/`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

const work = mkdtempSync(join(tmpdir(), 'cmrender-runner-test-'));
/** Frames of an output, counted by ffprobe (src/render/ffmpeg/probe.ts). */
async function framesOf(bytes: Buffer, ext: string): Promise<number> {
  const file = join(work, `probe.${ext}`);
  writeFileSync(file, bytes);
  return (await probe(file)).frames;
}

test('GET /healthz answers ok', async () => {
  const res = await fetch(`${base}/healthz`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'ok\n');
});

test('POST / frame, gif and video: 200 with the bytes and the right content type', async () => {
  const source = ownExample('hello.cm');
  const png = await run({ source, kind: 'frame', params: { width: 64 } });
  assert.equal(png.status, 200, png.bytes.toString());
  assert.equal(png.type, 'image/png');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(png.bytes.readUInt32BE(16), 64);
  const gif = await run({ source, kind: 'gif', params: { width: 64, fps: 10, duration: 0.5 } });
  assert.equal(gif.status, 200, gif.bytes.toString());
  assert.equal(gif.type, 'image/gif');
  assert.equal(await framesOf(gif.bytes, 'gif'), 5);
  const mp4 = await run({ source, kind: 'video', params: { width: 64, fps: 10, duration: 0.5 } });
  assert.equal(mp4.status, 200, mp4.bytes.toString());
  assert.equal(mp4.type, 'video/mp4');
  assert.equal(await framesOf(mp4.bytes, 'mp4'), 5);
});

test('POST / with an image inline in assets (base64) draws it', async () => {
  const res = await run({
    source: ownExample('image.cm'),
    kind: 'frame',
    params: { width: 64 },
    assets: Object.fromEntries(imagePaths().map((p) => [p, ownExampleImage('sunset.png').toString('base64')])),
  });
  assert.equal(res.status, 200, res.bytes.toString());
  const notImage = await run({
    source: ownExample('image.cm'),
    kind: 'frame',
    assets: { '/img/x.png': Buffer.from('hello').toString('base64') },
  });
  assert.equal(notImage.status, 400);
  assert.equal(JSON.parse(notImage.bytes.toString()).code, 'not_an_image');
});

/** The in-source image paths of our image example. */
function imagePaths(): string[] {
  return [...ownExample('image.cm').matchAll(/image\(\s*"([^"]+)"/g)].map((m) => m[1]);
}

test("POST / bad requests: 400 with the error envelope and the service's codes", async () => {
  const cases: [unknown, string][] = [
    ['not json', 'bad_json'],
    [[1, 2], 'bad_json'],
    [{ kind: 'frame' }, 'missing_source'],
    [{ source: 'x'.repeat(65537), kind: 'frame' }, 'source_too_large'],
    [{ source: 'x', kind: 'mesh' }, 'invalid_kind'],
    [{ source: 'x' }, 'invalid_kind'],
    [{ source: 'x', kind: 'gif', params: { fps: 31 } }, 'invalid_params'],
    [{ source: 'x', kind: 'video', params: { fps: 61 } }, 'invalid_params'],
    [{ source: 'x', kind: 'frame', params: { at: -1 } }, 'invalid_params'],
    [{ source: 'x', kind: 'video', params: { codec: 'h264', transparent: true } }, 'no_alpha'],
    [{ source: 'x', kind: 'frame', params: { format: 'jpeg', transparent: true } }, 'no_alpha'],
    [{ source: 'x', kind: 'video', params: { quality: 101 } }, 'invalid_params'],
    [{ source: 'x', kind: 'frame', assets: [1] }, 'invalid_assets'],
  ];
  for (const [body, code] of cases) {
    const r = await run(body);
    assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${r.bytes}`);
    const env = JSON.parse(r.bytes.toString());
    assert.equal(env.code, code, JSON.stringify(body).slice(0, 80));
    assert.equal(typeof env.error, 'string');
  }
});

/** 500 {error, code}: the diagnostic code of a compile failure, or a render-stage code. */
async function assertFailure(source: string, name: string, code?: RegExp): Promise<void> {
  const r = await run({ source, kind: 'frame', params: { width: 64 } });
  assert.equal(r.status, 500, `${name}: ${r.bytes.toString().slice(0, 200)}`);
  const body = JSON.parse(r.bytes.toString());
  assert.equal(typeof body.error, 'string', name);
  assert.ok(body.error.length > 0, name);
  assert.match(
    body.code,
    code ?? /^([A-Z]{3}\d{3}|timeout|internal_error|page_failed|page_crashed|encoder_failed|out_of_memory)$/,
    `${name}: ${body.code}`,
  );
}

test('POST / our own broken sources: 500 {error, code}', async () => {
  const hello = ownExample('hello.cm');
  await assertFailure(
    'runner "0.0.3";\nscene a() -> Frame { rect(width: 10px height: 10px) }\n',
    'syntax',
    /^PAR\d{3}$/,
  );
  await assertFailure(hello.replace(/runner "[^"]+"/, 'runner "9.9.9"'), 'unknown runner');
  await assertFailure(
    'runner "0.0.3";\nuse std.shapes.*;\nscene a() -> Frame { nothing_here(1) }\n',
    'unknown function',
  );
  await assertFailure(
    'runner "0.0.3";\nuse std.shapes.*;\nuse std.media.*;\nscene a() -> Frame { image("/img/absent.png") }\n',
    'missing image',
  );
});

const ERRORS = join(examplesDir, 'errors');
test(
  'POST / every error example of the corpus: 500 {error, code}',
  { skip: corpusSkip('examples/errors') },
  async () => {
    const files = readdirSync(ERRORS)
      .filter((f) => f.endsWith('.cm'))
      .sort();
    assert.ok(files.length > 0);
    for (const f of files) await assertFailure(readFileSync(join(ERRORS, f), 'utf8'), f);
  },
);

test('POST / a few hundred seeded fuzzed bodies: each answered 400 or 500 with an envelope, never a crash', async () => {
  const hello = ownExample('hello.cm');
  // truncated sources never parse (the scene's closing brace is last), so none of them renders for long
  const broken = fc.integer({ min: 0, max: hello.length - 3 }).map((k) => hello.slice(0, k));
  const kind = fc.oneof(
    fc.constantFrom('frame', 'video', 'gif', 'mesh', 'vectorize', ''),
    fc.integer(),
    fc.constant(null),
  );
  const params = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        fps: fc.oneof(fc.integer(), fc.double()),
        duration: fc.double(),
        width: fc.integer({ min: -100, max: 9000 }),
        height: fc.oneof(fc.integer(), fc.string()),
        at: fc.double(),
      },
      { requiredKeys: [] },
    ),
  );
  const body = fc.oneof(
    fc
      .record(
        {
          source: fc.oneof(broken, fc.string({ maxLength: 300 }), fc.jsonValue()),
          kind,
          params,
          assets: fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.string())),
        },
        { requiredKeys: [] },
      )
      .map((b) => JSON.stringify(b)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 500 }),
  );
  const bodies = fc.sample(body, { seed: 9090, numRuns: 300 });
  for (const [i, b] of bodies.entries()) {
    const r = await run(b);
    assert.ok(
      r.status === 400 || r.status === 500,
      `#${i} ${b.slice(0, 200)} -> ${r.status} ${r.bytes.toString().slice(0, 200)}`,
    );
    const env = JSON.parse(r.bytes.toString());
    assert.equal(typeof env.error, 'string', `#${i}`);
    assert.equal(typeof env.code, 'string', `#${i} ${r.bytes.toString().slice(0, 200)}`);
  }
});

test('a client that hangs up mid-render does not take the runner down', async () => {
  const ctl = new AbortController();
  // 120 distinct 1280x720 frames: over a second of work, so the hang-up below comes mid-render: once the runner's
  // encoder runs (a static scene at 320 wide once finished before a fixed 300 ms wait ended)
  const pending = fetch(`${base}/`, {
    method: 'POST',
    body: JSON.stringify({
      source: LONG_SLIDE,
      kind: 'video',
      params: { width: 1280, fps: 30, duration: 4 },
    }),
    signal: ctl.signal,
  });
  await until('the video encoder to run', () => ffmpegProcesses(child.pid!).length > 0, 60_000);
  ctl.abort();
  await assert.rejects(pending);
  const r = await run({ source: ownExample('hello.cm'), kind: 'frame', params: { width: 32 } });
  assert.equal(r.status, 200);
});

test('after all that: /healthz still answers ok, from the same process', async () => {
  const res = await fetch(`${base}/healthz`);
  assert.equal(await res.text(), 'ok\n');
  assert.equal(exited, undefined, 'the runner process has not exited');
  assert.equal(child.exitCode, null);
  assert.ok(process.kill(child.pid!, 0), 'the same pid is alive');
});

/** A raw connection that sends `head` and keeps what comes back. */
function rawRequest(head: string): { sock: Socket; answer: () => string; closed: Promise<void> } {
  const u = new URL(base);
  const sock = connect(Number(u.port), u.hostname);
  let answer = '';
  sock.on('data', (d) => (answer += d.toString()));
  sock.on('error', () => {});
  const closed = new Promise<void>((r) => sock.on('close', () => r()));
  sock.write(head);
  return { sock, answer: () => answer, closed };
}

test(
  'the runner cuts off half-sent headers at HEADERS_TIMEOUT_MS: 408, the socket closed',
  { timeout: 60_000 },
  async () => {
    const socks = Array.from({ length: 20 }, () => rawRequest('POST / HTTP/1.1\r\nHost: x\r\nX-Slow: '));
    const drip = setInterval(() => socks.forEach((s) => s.sock.writable && s.sock.write('a')), 200);
    try {
      await Promise.all(socks.map((s) => s.closed));
      for (const s of socks) assert.match(s.answer(), /^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
      socks.forEach((s) => s.sock.destroy());
    }
  },
);

test(
  'at most MAX_CONCURRENT_UPLOADS large bodies at once: the next is refused (503 too_many_uploads) before its bytes are read',
  { timeout: 60_000 },
  async () => {
    const large = (n: number) =>
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${n}\r\n\r\n{`;
    const held = Array.from({ length: LARGE_BODIES }, () => rawRequest(large(1024 * 1024 + 1)));
    try {
      // the held ones have been seen by the runner once a small request behind them is answered
      const small = await run({ source: 'x', kind: 'frame' });
      assert.notEqual(small.status, 503);
      const next = rawRequest(large(1024 * 1024 + 1));
      await next.closed;
      assert.match(next.answer(), /^HTTP\/1\.1 503 /);
      assert.match(next.answer(), /"code":"too_many_uploads"/);
      assert.match(next.answer(), /retry-after: \d+/i);
      // a body of exactly the service's own limit is not a large one: never refused for this (just past it is)
      const pad = 1024 * 1024 - JSON.stringify({ source: '', kind: 'frame' }).length;
      const atLimit = await run(JSON.stringify({ source: 'x'.repeat(pad), kind: 'frame' }));
      assert.notEqual(atLimit.status, 503, atLimit.bytes.toString());
    } finally {
      held.forEach((h) => h.sock.destroy());
    }
  },
);
