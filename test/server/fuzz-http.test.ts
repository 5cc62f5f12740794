// Fuzz of the HTTP layer for a bounded time: random methods, paths, headers and bodies through app.inject, then raw
// malformed HTTP over a loopback socket. No answer may be a 5xx except GET/HEAD of a job that ended in error (the
// contract's documented 500), and the service must stay up. The seed is printed; FUZZ_SEED replays a run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startApp, FakeRenderer, JobFailure, multipart } from '../helpers/app.js';
import { prng } from '../helpers/prng.js';
import { CODE } from '../../src/contract/error-codes.js';

// a fixed seed, so a failure reproduces; FUZZ_SEED explores others
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const BUDGET_MS = Number(process.env.FUZZ_MS ?? 20_000);

const rand = prng(SEED);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
const chance = (p: number) => rand() < p;

function randString(max: number, alphabet?: string): string {
  const n = int(max + 1);
  let s = '';
  for (let i = 0; i < n; i++) {
    if (alphabet) s += alphabet[int(alphabet.length)];
    else {
      const r = rand();
      s +=
        r < 0.7
          ? String.fromCharCode(32 + int(95))
          : r < 0.85
            ? String.fromCharCode(int(32))
            : r < 0.95
              ? String.fromCharCode(0x80 + int(0x780))
              : String.fromCodePoint(0x1f600 + int(80));
    }
  }
  return s;
}

const SRC_OK =
  'runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame { compose [rect(width: 10px, height: 10px, fill: #fff)] }\n';
const weird = () =>
  pick<unknown>([
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    'NaN',
    'Infinity',
    '',
    ' ',
    [],
    {},
    [1, 2],
    { a: 1 },
    randString(20),
    int(100000),
    -int(100000),
    rand() * 1e6,
    '1e999',
    { __proto__: { polluted: true } },
    { constructor: { prototype: { x: 1 } } },
  ]);

function randValue(depth = 0): unknown {
  if (depth > 4 || chance(0.5)) return weird();
  if (chance(0.5)) return Array.from({ length: int(5) }, () => randValue(depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = 0; i < int(5); i++)
    o[pick(['source', 'params', 'assets', 'fps', 'width', 'x', '__proto__', 'constructor', randString(8)])] = randValue(
      depth + 1,
    );
  return o;
}

function randJobBody(): unknown {
  const body: Record<string, unknown> = {};
  if (!chance(0.1))
    body.source = chance(0.6) ? (chance(0.2) ? SRC_OK + '// fail\n' : SRC_OK) : chance(0.5) ? randString(200) : weird();
  if (chance(0.7)) {
    const p: Record<string, unknown> = {};
    for (const k of ['fps', 'duration', 'width', 'height', 'at', 'x'])
      if (chance(0.4)) p[k] = chance(0.5) ? int(5000) - 100 : weird();
    body.params = chance(0.9) ? p : weird();
  }
  if (chance(0.3))
    body.assets = chance(0.5)
      ? { [randString(20)]: chance(0.5) ? `asset_${'0'.repeat(32)}` : randString(40) }
      : weird();
  if (chance(0.2)) body[randString(6)] = randValue();
  if (chance(0.1)) body.__proto__ = { source: SRC_OK };
  return chance(0.9) ? body : randValue();
}

function randBody(): string | Buffer | undefined {
  const r = rand();
  if (r < 0.45) return JSON.stringify(randJobBody());
  if (r < 0.55) return undefined;
  if (r < 0.65) return Buffer.from(Array.from({ length: int(2000) }, () => int(256)));
  if (r < 0.75) return JSON.stringify(randJobBody()).slice(0, int(60)); // cut JSON
  if (r < 0.8) return '['.repeat(int(100_000)); // deep JSON
  if (r < 0.85) return `{"source": "${'a'.repeat(65_530 + int(20))}"}`; // around the source limit
  if (r < 0.88) return 'x'.repeat(1024 * 1024 + int(1000)); // over the body limit
  if (r < 0.95) return randString(500);
  return JSON.stringify(randValue());
}

const ROUTES = [
  '/v1/render',
  '/v1/frame',
  '/v1/check',
  '/v1/assets',
  '/v1/jobs/',
  '/v1/outputs/',
  '/healthz',
  '/openapi.json',
  '/docs',
  '/docs/',
  '/',
  '/v1',
  '/v2/render',
  '/test',
];
function randPath(known: { jobs: string[]; outputs: string[] }): string {
  let p = pick(ROUTES);
  if (p === '/v1/jobs/')
    p +=
      chance(0.5) && known.jobs.length
        ? pick(known.jobs)
        : pick([
            randString(40, 'abcdef0123456789-'),
            '00000000-0000-4000-8000-000000000000',
            '..%2F..%2Fetc%2Fpasswd',
            '%00',
            randString(10),
          ]);
  if (p === '/v1/outputs/')
    p +=
      chance(0.5) && known.outputs.length
        ? pick(known.outputs)
        : pick([
            '..%2Fjobs.journal',
            '../../etc/passwd',
            '.',
            '..',
            '%2e%2e',
            'a'.repeat(3000),
            randString(30, 'abc.-_/%0123456789'),
            'jobs.journal',
          ]);
  if (chance(0.1))
    p += pick(['/', '//', '?', '?a=1&a=2', '#x', '%', '%zz', '/..', '/%2e%2e/', encodeURIComponent(randString(10))]);
  if (chance(0.05)) p = '/' + randString(50, 'abcdefghijklmnopqrstuvwxyz/%.?=&#0123456789');
  return p;
}

const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=xyz',
  'application/json; charset=utf-16',
  'image/png',
  '',
  '*/*',
  'application/octet-stream',
  randString(30),
];
function randHeaders(): Record<string, string> {
  const h: Record<string, string> = {};
  if (chance(0.8)) h['content-type'] = pick(CONTENT_TYPES);
  if (chance(0.2))
    h.range = pick([
      'bytes=0-0',
      'bytes=-1',
      'bytes=5-2',
      'bytes=0-99999999999999999999',
      'bytes=a-b',
      'bytes=0-1,2-3',
      'lines=1-2',
      `bytes=${int(1e6)}-`,
    ]);
  if (chance(0.1)) h['if-none-match'] = pick(['*', '"x"', randString(20, 'abc"W/,')]);
  if (chance(0.1)) h['if-range'] = randString(20);
  if (chance(0.1)) h.accept = pick(['*/*', 'text/html', randString(20)]);
  if (chance(0.1)) h['content-encoding'] = pick(['gzip', 'br', 'identity', 'x']);
  if (chance(0.05)) h.origin = randString(30, 'abc:/.');
  if (chance(0.05)) h['access-control-request-method'] = pick(['POST', 'X']);
  if (chance(0.05)) h[`x-${randString(8, 'abcdefgh')}`] = randString(100, 'abcdefghijklmnop ');
  return h;
}

test(
  'HTTP fuzz through inject: no 5xx but a failed job’s 500, no crash',
  { timeout: BUDGET_MS + 120_000 },
  async (t) => {
    const r = new FakeRenderer();
    r.behaviour = (job) => {
      if (job.source.includes('// fail')) throw new JobFailure('render failed: fuzz', CODE.page_failed);
    };
    const app = await startApp({ renderer: r, config: { maxQueuedJobs: 1_000_000 } });
    const known = { jobs: [] as string[], outputs: [] as string[] };
    const errored = new Set<string>();
    const counts = new Map<number, number>();
    let n = 0;
    t.diagnostic(`seed ${SEED}`);
    try {
      const end = Date.now() + BUDGET_MS * 0.7;
      while (Date.now() < end) {
        n++;
        const method = pick([
          'GET',
          'GET',
          'POST',
          'POST',
          'POST',
          'HEAD',
          'OPTIONS',
          'PUT',
          'DELETE',
          'PATCH',
        ] as const);
        const url = randPath(known);
        const headers = randHeaders();
        let payload = method === 'GET' || method === 'HEAD' ? undefined : randBody();
        if (url === '/v1/assets' && method === 'POST' && chance(0.5)) {
          const m = multipart(
            Array.from({ length: int(4) }, (_, i) => ({
              name: `f${i}`,
              filename: chance(0.8) ? randString(20) : undefined,
              data: chance(0.5) ? Buffer.from('\x89PNG\r\n\x1a\n' + randString(100)) : randString(200),
            })),
          );
          payload = chance(0.8) ? m.payload : m.payload.subarray(0, int(m.payload.length));
          Object.assign(headers, m.headers);
        }
        let res;
        try {
          let timer: NodeJS.Timeout | undefined;
          res = await Promise.race([
            app.app.inject({ method, url, headers, payload }),
            new Promise<never>((_, rej) => {
              timer = setTimeout(
                () =>
                  rej(
                    new Error(
                      `no answer in 10 s: seed ${SEED} #${n}: ${method} ${url.slice(0, 200)} ${JSON.stringify(headers)} body ${String(payload).slice(0, 200)}`,
                    ),
                  ),
                10_000,
              );
            }),
          ]).finally(() => clearTimeout(timer));
        } catch (e) {
          // inject refuses a few things no client could send (e.g. a body on a bad method): not an answer of the server
          if (e instanceof Error && !/no answer/.test(e.message) && /Invalid|must be|not a valid/i.test(e.message))
            continue;
          throw e;
        }
        counts.set(res.statusCode, (counts.get(res.statusCode) ?? 0) + 1);
        const tag = `seed ${SEED} #${n}: ${method} ${url.slice(0, 200)} ${JSON.stringify(headers).slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        if (res.statusCode === 202) {
          const id = res.json().job_id;
          known.jobs.push(id);
        }
        if (res.statusCode >= 500) {
          const m = /^\/v1\/jobs\/([0-9a-f-]{36})$/.exec(url.split(/[?#]/)[0]);
          assert.ok(m && (method === 'GET' || method === 'HEAD'), `5xx: ${tag}`);
          if (method === 'GET') {
            const body = res.json();
            assert.equal(body.status, 'error', tag);
            assert.equal(typeof body.message, 'string', tag);
          }
          errored.add(m[1]);
        }
        if (res.statusCode === 200 && method === 'GET' && url.startsWith('/v1/jobs/')) {
          const v = res.json();
          if (v.status === 'ready') known.outputs.push(v.url.split('/').pop());
        }
        // an answer always carries open CORS and, for errors, the ErrorEnvelope
        assert.equal(res.headers['access-control-allow-origin'], '*', tag);
        if (res.statusCode >= 400 && res.statusCode < 500 && method !== 'HEAD' && res.statusCode !== 416) {
          const b = res.json();
          assert.equal(typeof b.error, 'string', tag);
        }
      }
      t.diagnostic(
        `inject: ${n} requests, ${known.jobs.length} jobs, ${errored.size} failed jobs seen, statuses ${JSON.stringify(Object.fromEntries(counts))}`,
      );

      // raw malformed HTTP over loopback
      await app.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.app.server.address() as { port: number }).port;
      const rawEnd = Date.now() + BUDGET_MS * 0.3;
      let raw = 0;
      const rawCounts = new Map<string, number>();
      while (Date.now() < rawEnd) {
        raw++;
        const bytes = randRaw();
        const answer = await sendRaw(port, bytes);
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 'closed';
        rawCounts.set(status, (rawCounts.get(status) ?? 0) + 1);
        if (status !== 'closed' && Number(status) >= 500) {
          const m = /^(GET|HEAD) \/v1\/jobs\/([0-9a-f-]{36})[?#]?\S* /.exec(bytes.toString('latin1'));
          assert.ok(
            m && known.jobs.includes(m[2]) && / 500 /.test(answer.split('\r\n')[0]),
            `raw 5xx for ${JSON.stringify(bytes.toString('latin1').slice(0, 300))}: ${answer.slice(0, 300)}`,
          );
        }
      }
      t.diagnostic(`raw: ${raw} connections, statuses ${JSON.stringify(Object.fromEntries(rawCounts))}`);
      const h = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(h.status, 200);
      assert.equal(await h.text(), 'ok\n');
      assert.ok(n > 200, `only ${n} requests in the budget`);
    } finally {
      await app.close();
    }

    function randRaw(): Buffer {
      const r = rand();
      const method = pick(['GET', 'POST', 'HEAD', 'PUT', 'G\0T', 'get', '', randString(10, 'ABCXYZ')]);
      const target = pick([randPath(known), '*', 'http://127.0.0.1/healthz', randString(100), '/%', '/\u00ff', ' /']);
      const version = pick(['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 extra', '', 'http/1.1', 'HTTP/9.9']);
      const lines = [`${method} ${target} ${version}`];
      if (chance(0.9)) lines.push('Host: 127.0.0.1');
      for (let i = 0; i < int(6); i++)
        lines.push(
          pick([
            `Content-Length: ${pick(['-1', '0', '10', '99999999999999999999', 'abc', '5, 6'])}`,
            'Transfer-Encoding: chunked',
            'Transfer-Encoding: gzip, chunked',
            `X: ${randString(50)}`,
            randString(40),
            ': empty',
            'Content-Type: application/json',
            `Connection: ${pick(['close', 'keep-alive', 'upgrade'])}`,
            'Upgrade: websocket',
            'Expect: 100-continue',
          ]),
        );
      let head = lines.join(chance(0.9) ? '\r\n' : '\n') + '\r\n\r\n';
      if (r < 0.1) head = randString(300);
      let body = chance(0.5) ? JSON.stringify(randJobBody()) : randString(200);
      if (chance(0.2)) body = `${int(20).toString(16)}\r\n${randString(30)}\r\n0\r\n\r\n`;
      return Buffer.from(head + body, 'latin1');
    }
  },
);

function sendRaw(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    const s = connect(port, '127.0.0.1');
    const done = () => {
      clearTimeout(timer);
      s.destroy();
      resolve(out);
    };
    const timer = setTimeout(done, 1500);
    s.on('data', (d) => {
      out += d.toString('latin1');
      if (/^HTTP\/1\.[01] \d{3}/.test(out)) done();
    });
    s.on('error', done);
    s.on('close', done);
    s.on('connect', () => {
      s.write(bytes);
      // half-close so a server waiting for more body answers
      s.end();
    });
  });
}
