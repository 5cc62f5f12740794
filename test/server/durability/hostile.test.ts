// Hostile input through the real renderer (warm Chromium, ffmpeg): the viewer page reaches nothing outside its own
// files and the job's assets (a local listener counts requests: none), data:/file: URLs draw nothing, file names and
// asset keys cannot leave DATA_DIR, a malformed image fails its job cleanly, and sources built to hurt (huge
// numbers, NaN, deep nesting, giant arrays, 64 KiB of anything) end as a diagnostic or a job error, quickly.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { PNG } from 'pngjs';
import { startApp, realRenderer, multipart, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import type { ChromiumRenderer } from '../../../src/render/chromium-renderer.js';

let t: TestApp;
let renderer: ChromiumRenderer;
let listener: Server;
let port = 0;
const hits: string[] = [];

before(async () => {
  renderer = realRenderer();
  t = await startApp({ renderer });
  listener = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' });
    res.end(redPng());
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  port = (listener.address() as { port: number }).port;
});
after(async () => {
  await new Promise((r) => listener.close(r));
  await t.close();
});

function png(w: number, h: number, rgba: [number, number, number, number]): Buffer {
  const p = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) p.data.set(rgba, i * 4);
  return PNG.sync.write(p);
}
const redPng = () => png(8, 8, [255, 0, 0, 255]);

async function upload(name: string, bytes: Buffer): Promise<string> {
  const m = multipart([{ name: 'f', filename: name, data: bytes }]);
  const r = await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().assets[name];
}

const imageScene = (path: string) => `runner "0.0.3";
use std.shapes.*;
scene s() -> Frame {
  let bg = image(${JSON.stringify(path)}).fit(cover);
  compose [bg]
}
`;

/** Runs a job to its end, bounded: a hostile job may fail, never hang. */
async function settle(url: string, body: unknown, ms = 20_000) {
  const r = await post(t.app, url, body);
  if (r.statusCode !== 202) return { status: r.statusCode, body: r.json() };
  const j = await waitJob(t.app, r.json().job_id, ms);
  return { status: j.statusCode, body: j.json() };
}

function redPixels(buf: Buffer): number {
  const p = PNG.sync.read(buf);
  let n = 0;
  for (let i = 0; i < p.data.length; i += 4) if (p.data[i] > 200 && p.data[i + 1] < 60 && p.data[i + 2] < 60) n++;
  return n;
}

test(
  'outside URLs in a source reach nothing: a local listener counts no request; data: and file: images draw nothing',
  { timeout: 120_000 },
  async () => {
    const blue = await upload('blue.png', png(8, 8, [0, 0, 255, 255]));
    const paths = [
      `http://127.0.0.1:${port}/direct.png`,
      `//127.0.0.1:${port}/scheme-relative.png`,
      `http://localhost:${port}/by-name.png`,
      `http://[::1]:${port}/v6.png`,
      `https://127.0.0.1:${port}/tls.png`,
      `/..//127.0.0.1:${port}/dots.png`,
      `\\\\127.0.0.1:${port}\\back.png`,
      `file:///etc/passwd`,
      `file://${join(t.dataDir, 'jobs.journal')}`,
      `data:image/png;base64,${redPng().toString('base64')}`,
    ];
    for (const p of paths) {
      for (const [url, params] of [
        ['/v1/frame', { width: 64, height: 64 }],
        ['/v1/render', { width: 64, height: 64, fps: 5, duration: 0.4 }],
      ] as const) {
        // mapped to an uploaded asset (so the compile-side check passes and the page really tries), and unmapped
        for (const assets of [{ [p]: blue }, undefined]) {
          const r = await settle(url, { source: imageScene(p), params, assets });
          assert.ok(r.status === 200 || r.status === 500 || r.status === 400, `${p}: ${r.status}`);
          if (r.status === 500) assert.ok(r.body.message.length > 0);
          if (r.status === 200 && url === '/v1/frame') {
            const out = await t.app.inject({ url: r.body.url });
            assert.equal(redPixels(out.rawPayload), 0, `${p}: the outside image was drawn`);
          }
        }
      }
    }
    // and straight from the page: fetch, image, XHR, beacon to the listener are all refused
    assert.deepEqual(hits, [], `the listener was reached: ${hits.join(', ')}`);
  },
);

test(
  'the viewer page carries a CSP that refuses data:, blob: and outside origins even where routing cannot see',
  { timeout: 60_000 },
  async () => {
    const page = await renderer.browser.acquire();
    try {
      const r = (await page.page.evaluate(`(async () => {
      const img = (src) => new Promise((res) => { const i = new Image(); i.onload = () => res('loaded'); i.onerror = () => res('refused'); i.src = src; });
      const red = ${JSON.stringify('data:image/png;base64,' + redPng().toString('base64'))};
      const blob = URL.createObjectURL(new Blob([Uint8Array.from(atob(red.split(',')[1]), (c) => c.charCodeAt(0))], { type: 'image/png' }));
      return {
        data: await img(red),
        blob: await img(blob),
        http: await img('http://127.0.0.1:${port}/csp.png'),
        fetchOut: await fetch('http://127.0.0.1:${port}/f').then(() => 'ok', () => 'refused'),
        own: await fetch('/__cmrender__/index.html').then((x) => x.status, () => 'refused'),
      };
    })()`)) as Record<string, unknown>;
      assert.deepEqual(r, { data: 'refused', blob: 'refused', http: 'refused', fetchOut: 'refused', own: 200 });
    } finally {
      renderer.browser.release(page, false);
    }
    assert.deepEqual(hits, []);
  },
);

test('file names and asset keys cannot leave DATA_DIR', async () => {
  const evilNames = ['../../evil.png', '/etc/evil.png', '..\\..\\evil.png', 'a/../../../evil.png', '%2e%2e%2fevil.png'];
  for (const name of evilNames) {
    const m = multipart([{ name: 'f', filename: name, data: redPng() }]);
    const r = await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
    assert.equal(r.statusCode, 200, r.body);
    const keys = Object.values(r.json().assets) as string[];
    assert.equal(keys.length, 1);
    assert.match(keys[0], /^asset_[0-9a-f]{32}$/);
  }
  const outside = dirname(t.dataDir);
  assert.ok(!existsSync(join(outside, 'evil.png')) && !existsSync('/etc/evil.png'));
  assert.ok(
    readdirSync(join(t.dataDir, 'assets')).every((f) => /^asset_[0-9a-f]{32}(\.sha256)?$/.test(f)),
    readdirSync(join(t.dataDir, 'assets')).join(','),
  );
  // keys that are paths are refused before any file is touched
  for (const key of [
    '../jobs.journal',
    'asset_../../../etc/passwd',
    `asset_${'0'.repeat(32)}/../../jobs.journal`,
    'asset_' + '0'.repeat(31) + 'G',
  ]) {
    const r = await post(t.app, '/v1/frame', { source: imageScene('/img/x.png'), assets: { '/img/x.png': key } });
    assert.equal(r.statusCode, 400, key);
  }
  // the journal, assets and tmp files in DATA_DIR are never served as outputs
  for (const u of [
    'jobs.journal',
    '..%2Fjobs.journal',
    '..%2F..%2Fjobs.journal',
    '%2e%2e/jobs.journal',
    '.%2E/assets',
    '../assets',
    'jobs.journal.tmp',
  ]) {
    const r = await t.app.inject({ url: `/v1/outputs/${u}` });
    assert.equal(r.statusCode, 404, u);
  }
});

test(
  'a malformed image asset (image magic, garbage body) fails its job cleanly; the next job renders',
  { timeout: 60_000 },
  async () => {
    const good = redPng();
    const bad = Buffer.concat([good.subarray(0, 16), Buffer.alloc(2000, 0x5a)]);
    const jpegish = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 7)]);
    const svgish = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><g><rect width="10" height="10"');
    for (const [name, bytes] of [
      ['bad.png', bad],
      ['bad.jpg', jpegish],
      ['bad.svg', svgish],
    ] as const) {
      const key = await upload(name, bytes);
      for (const url of ['/v1/frame', '/v1/render']) {
        const r = await settle(url, {
          source: imageScene('/img/x.png'),
          assets: { '/img/x.png': key },
          params: { width: 64, height: 64, ...(url === '/v1/render' ? { fps: 5, duration: 0.4 } : {}) },
        });
        assert.equal(r.status, 500, `${name} ${url}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'ASS001');
        assert.match(r.body.message, /could not be loaded/);
      }
    }
    // a truncated PNG decodes as far as it goes (Chromium draws the rows it has) or fails: never anything else
    const truncated = await settle('/v1/frame', {
      source: imageScene('/img/x.png'),
      assets: { '/img/x.png': await upload('t.png', good.subarray(0, good.length - 30)) },
      params: { width: 64, height: 64 },
    });
    assert.ok(truncated.status === 200 || truncated.body.code === 'ASS001', JSON.stringify(truncated.body));
    const ok = await settle('/v1/frame', {
      source: imageScene('/img/x.png'),
      assets: { '/img/x.png': await upload('ok.png', good) },
      params: { width: 64, height: 64 },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.ok(redPixels((await t.app.inject({ url: ok.body.url })).rawPayload) > 1000, 'the good image is drawn');
  },
);

const pre = 'runner "0.0.3";\nuse std.shapes.*;\nuse std.anim.*;\n';
const scene = (body: string, params = '') => `${pre}scene s(${params}) -> Frame {\n${body}\n}\n`;
function fill64k(unit: string): string {
  return unit.repeat(Math.floor(65536 / unit.length)).slice(0, 65536);
}
function rnd(seed: number) {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** 10^200: number literals have no exponent, so big numbers are spelled out (and multiplied past the double range) */
const BIG = '1' + '0'.repeat(200);

const HOSTILE: [string, string][] = [
  [
    'huge numbers',
    scene(
      `  let big = ${BIG}px;\n  let bg = rect(width: big * ${BIG} * ${BIG}, height: big, fill: #ffffff).translate(x: big * ${BIG});\n  compose [bg]`,
    ),
  ],
  [
    'huge but finite',
    scene(`  compose [rect(width: ${BIG}px, height: ${BIG}px, fill: #ff0000).translate(x: -${BIG}px).scale(${BIG})]`),
  ],
  ['infinite frame', scene(`  compose [rect(width: ${BIG}px * ${BIG}, height: ${BIG}px * ${BIG}, fill: #ff0000)]`)],
  [
    'NaN arithmetic',
    scene(
      `  let inf = ${BIG}px * ${BIG} * ${BIG};\n  let n = inf - inf;\n  compose [rect(width: 100px, height: 100px, fill: #ffffff).translate(x: n, y: n).rotate(n / 1px * 1deg).scale(n / 1px)]`,
    ),
  ],
  [
    'zero over zero',
    scene(
      '  let n = 0px / 0;\n  compose [rect(width: n, height: n, fill: #ffffff).translate(x: n).rotate(n / 1px * 1deg).scale(n / 1px)]',
    ),
  ],
  ['negative sizes', scene(`  compose [rect(width: -100px, height: -${BIG}px, fill: #ffffff).scale(-${BIG})]`)],
  [
    'huge animation times',
    scene(
      `  let x = animate { 0s => 0px, ${BIG}s => ${BIG}px } with { repeat: forever };\n  compose [rect(width: 10px, height: 10px, fill: #ffffff).translate(x: x)]`,
    ),
  ],
  [
    'endless declared duration',
    scene('  compose [rect(width: 10px, height: 10px, fill: #ffffff)]', `duration: Duration = ${BIG}s`),
  ],
  [
    'NaN declared duration',
    scene(
      '  compose [rect(width: 10px, height: 10px, fill: #ffffff)]',
      `duration: Duration = ${BIG}s * ${BIG} * ${BIG} - ${BIG}s * ${BIG} * ${BIG}`,
    ),
  ],
  [
    'negative declared duration',
    scene('  compose [rect(width: 10px, height: 10px, fill: #ffffff)]', 'duration: Duration = -5s'),
  ],
  ['deep brackets', scene(`  let a = ${'['.repeat(5000)}1${']'.repeat(5000)};\n  compose []`)],
  ['deep parens', scene(`  let a = ${'('.repeat(5000)}1${')'.repeat(5000)};\n  compose []`)],
  ['deep compose', scene(`  ${'compose ['.repeat(400)}rect(width: 1px, height: 1px, fill: #fff)${']'.repeat(400)}`)],
  ['deep blocks', scene(`  let a = ${'if true { '.repeat(3000)}1${' }'.repeat(3000)};\n  compose []`)],
  ['giant array', scene(`  let a = [${'1, '.repeat(20000)}];\n  compose []`)],
  [
    'many layers',
    `${pre}scene s() -> Frame {\n  compose [${'rect(width: 2px, height: 2px, fill: #fff), '.repeat(1400)}]\n}\n`,
  ],
  [
    'recursion bomb',
    `${pre}let f = |g: Fn, n: Number| { if n > 0 { [g(g, n - 1), g(g, n - 1)] } else { 0 } }; scene s() -> Frame { f(f, 60) }`,
  ],
  ['self application', `${pre}let f = |g: Fn| { g(g) }; scene s() -> Frame { f(f) }`],
  ['64 KiB of {', fill64k('{')],
  ['64 KiB of [', fill64k('[')],
  ['64 KiB of "', fill64k('"')],
  ['64 KiB of a', fill64k('a')],
  ['64 KiB of digits', fill64k('9')],
  ['64 KiB of unicode', fill64k('€😀')],
  ['64 KiB comment', `${pre}scene s() -> Frame { compose [] }\n/*${'*'.repeat(65536 - pre.length - 40)}`],
  ['64 KiB of NUL', '\u0000'.repeat(65536)],
  [
    '64 KiB random',
    Array.from(
      { length: 65536 },
      (
        (r) => () =>
          String.fromCharCode(32 + Math.floor(r() * 95))
      )(rnd(7)),
    ).join(''),
  ],
  [
    '64 KiB token soup',
    (() => {
      const toks = [
        'let',
        'x',
        '=',
        '1e308',
        '0/0',
        '[',
        ']',
        '(',
        ')',
        '{',
        '}',
        ',',
        ';',
        'compose',
        'rect(',
        'animate {',
        '=>',
        'px',
        's',
        'if',
        'match',
        '|a|',
        '#fff',
        '"s"',
        '.',
        '*',
      ];
      const r = rnd(11);
      let s = pre;
      while (s.length < 65500) s += toks[Math.floor(r() * toks.length)] + ' ';
      return s.slice(0, 65536);
    })(),
  ],
];

test(
  'sources built to hurt end as a diagnostic or a job error, each in seconds, and the service stays up',
  { timeout: 600_000 },
  async () => {
    const outcomes: string[] = [];
    for (const [name, source] of HOSTILE) {
      assert.ok(source.length <= 65536, `${name} is ${source.length} chars`);
      for (const [url, params] of [
        ['/v1/frame', { width: 64, height: 64 }],
        ['/v1/render', { width: 64, height: 64, fps: 5 }],
      ] as const) {
        const t0 = Date.now();
        const check = await post(t.app, '/v1/check', { source });
        assert.equal(check.statusCode, 200, `${name}: /v1/check answered ${check.statusCode}`);
        const r = await settle(url, { source, params }, 30_000);
        const ms = Date.now() - t0;
        assert.ok(r.status === 200 || r.status === 500, `${name} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
        if (r.status === 500) {
          assert.equal(r.body.status, 'error');
          assert.ok(typeof r.body.message === 'string' && r.body.message.length > 0);
        } else {
          const out = await t.app.inject({ url: r.body.url });
          assert.equal(out.statusCode, 200);
        }
        outcomes.push(`${name} ${url}: ${r.status === 200 ? 'ready' : (r.body.code ?? r.body.message)} (${ms} ms)`);
        assert.ok(ms < 30_000, `${name} ${url} took ${ms} ms`);
      }
    }
    const over = await post(t.app, '/v1/frame', { source: fill64k('a') + 'a' });
    assert.equal(over.statusCode, 400);
    assert.equal(over.json().code, 'source_too_large');
    assert.equal((await t.app.inject({ url: '/healthz' })).statusCode, 200);
    const ok = await settle('/v1/frame', {
      source: scene('  compose [rect(width: 10px, height: 10px, fill: #ffffff)]'),
      params: { width: 64, height: 64 },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    console.log(outcomes.join('\n'));
  },
);
