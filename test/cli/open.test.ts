// `cmrender open FILE` as a user runs it: the built bin as a child process, its URL read from stdout, the page opened
// in the real Chromium. The page shows the file's source and draws its scene; when the file is rewritten on disk the
// page shows the new source and the new colour, even over an edit made in the page; a reload reads the file as it is
// now. `--browser` runs the system's opener (here a recording `xdg-open` first on PATH, since no desktop browser
// exists in a test) and, when it fails, says so and keeps serving. SIGTERM exits 0; an unreadable file exits 66, a
// misuse 2, a port in use 1. Only the page it printed reads the file: another Host, no token, another origin (a
// page on another loopback port, in Chromium too) and a symlink swapped in at the path are each refused.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request, createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launchTestChromium } from '../helpers/gl.js';
import { builtEditor, builtViewer } from '../helpers/built.js';
import { until } from '../helpers/until.js';
import { runServiceToEnd, spawnService } from '../helpers/service-spawn.js';

const LIMIT = { timeout: 300_000 };
/** a bounded wait for what the service or the page will do (a loaded machine is many times slower than usual) */
const WAIT_MS = 120_000;

const dir = mkdtempSync(path.join(tmpdir(), 'cmrender-open-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A scene filled by one colour: every pixel of the preview is it. */
const SCENE = (fill: string) => `runner "0.0.3";
use std.shapes.*;
scene s() -> Frame {
  compose [rect(width: 640px, height: 360px, fill: ${fill})]
}
`;
const RED = SCENE('#ff0000');
const BLUE = SCENE('#0000ff');

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** the first line of stdout */
  line: Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startOpen(args: string[], env: Record<string, string> = {}): Running {
  const child = spawnService('open', env, { args, cwd: process.cwd() });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const line = new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const i = out.indexOf('\n');
      if (i >= 0) resolve(out.slice(0, i));
    });
    void exit.then(({ code }) => reject(new Error(`cmrender open exited (${code}) before its URL: ${err}`)));
  });
  line.catch(() => {});
  return { child, stdout: () => out, stderr: () => err, line, exit };
}

/** The preview's pixel at the middle of the canvas, read in the page (RGBA). */
function middlePixel(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const p = window.cmEditor.previewPixels();
    const bytes = atob(p.rgba);
    const i = (Math.floor(p.height / 2) * p.width + Math.floor(p.width / 2)) * 4;
    return [0, 1, 2, 3].map((k) => bytes.charCodeAt(i + k));
  });
}

/** The header the page sends its URL's token in. */
const TOKEN = 'x-cmrender-open-token';
const tokenOf = (url: string) => new URL(url).searchParams.get('open')!;

/** A GET with exactly these headers (fetch cannot set Host or Origin): status, headers and body. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const near = (px: number[], rgb: number[]) => rgb.every((v, k) => Math.abs(px[k]! - v) <= 8);

test(
  'open: the editor shows the file and draws it; a rewrite on disk shows in the page; SIGTERM exits 0',
  LIMIT,
  async (t) => {
    builtEditor();
    builtViewer();
    const file = path.join(dir, 'scene.cm');
    writeFileSync(file, RED);
    // the system's opener, first on PATH: it records the URL it is given and fails, as an opener with no browser does
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    const opened = path.join(dir, 'opened.txt');
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\nexit 3\n`);
    chmodSync(path.join(bin, 'xdg-open'), 0o755);

    const t0 = performance.now();
    const run = startOpen([file, '--json', '--browser'], { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` });
    try {
      const printed = JSON.parse(await run.line) as { url: string; file: string };
      const urlMs = performance.now() - t0;
      assert.deepEqual(Object.keys(printed).sort(), ['file', 'url']);
      assert.equal(printed.file, file);
      assert.match(printed.url, /^http:\/\/127\.0\.0\.1:\d+\/\?open=[\w-]{32}$/);
      const base = new URL(printed.url).origin;
      const withToken = { [TOKEN]: tokenOf(printed.url) };

      // --browser: the opener got the URL; its failure is said and the service keeps serving (the rest of this test)
      await until(
        'the warning',
        () => /could not open a browser \(xdg-open: exit status 3\)/.test(run.stderr()),
        WAIT_MS,
      );
      assert.equal(readFileSync(opened, 'utf8'), printed.url);

      const browser = await launchTestChromium();
      t.after(() => browser.close());
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(printed.url);
      await page.waitForFunction(() => window.cmEditor !== undefined, null, { timeout: WAIT_MS });
      const drawnOnce = () => window.cmEditor.previews > 0 && !window.cmEditor.drawing;
      await page.waitForFunction(drawnOnce, null, { timeout: WAIT_MS });
      assert.equal(await page.evaluate(() => window.cmEditor.source), RED);
      // the page names the file it follows from the first load, before any change on disk
      assert.equal(await page.locator('[data-testid="open-file-name"]').textContent(), 'Following scene.cm');
      assert.equal(await page.title(), 'scene.cm · cmrender editor');
      const red = await middlePixel(page);
      assert.ok(near(red, [255, 0, 0]), `red preview: ${red.join(',')}`);

      // an unsaved edit in the page, then the file changes on disk: the file wins, source and picture
      await page.evaluate((s) => window.cmEditor.setSource(s), SCENE('#00ff00'));
      writeFileSync(file, BLUE);
      await page.waitForFunction((s) => window.cmEditor.source === s, BLUE, { timeout: WAIT_MS });
      await until('the preview to turn blue', async () => near(await middlePixel(page), [0, 0, 255]), WAIT_MS);
      assert.match((await page.locator('#preview-status').textContent()) ?? '', /Reloaded scene\.cm/);

      // a reload reads the file as it is now, not the page's last edit (kept in local storage)
      await page.evaluate((s) => window.cmEditor.setSource(s), SCENE('#00ff00'));
      await page.reload();
      await page.waitForFunction(() => window.cmEditor !== undefined, null, { timeout: WAIT_MS });
      await page.waitForFunction((s) => window.cmEditor.source === s, BLUE, { timeout: WAIT_MS });
      assert.deepEqual(errors, []);

      // the route serves that one file only: an ETag, 304 for it, nothing under it
      const r = await fetch(`${base}/v1/open/source?path=../../etc/passwd`, { headers: withToken });
      assert.equal(r.status, 200);
      assert.equal(await r.text(), BLUE);
      const etag = r.headers.get('etag')!;
      const again = await fetch(`${base}/v1/open/source`, { headers: { ...withToken, 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal((await fetch(`${base}/v1/open/source/..%2F..%2Fetc%2Fpasswd`, { headers: withToken })).status, 404);

      // a page on another loopback port, in the same browser, cannot read the file, even knowing the token
      const other = createHttpServer((_req, res) => res.end('<!doctype html><title>other</title>'));
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      t.after(() => other.close());
      const otherPage = await (await browser.newContext()).newPage();
      await otherPage.goto(`http://127.0.0.1:${(other.address() as { port: number }).port}/`);
      const read = await otherPage.evaluate(
        async ([url, headers]) => {
          try {
            const res = await fetch(url, { headers });
            return `read ${res.status}: ${await res.text()}`;
          } catch (e) {
            return `refused: ${(e as Error).message}`;
          }
        },
        [`${base}/v1/open/source`, withToken] as const,
      );
      assert.match(read, /^refused: /);

      // the renderer warms up behind the URL
      await until('/readyz 200', async () => (await fetch(`${base}/readyz`)).status === 200, WAIT_MS);
      const readyMs = performance.now() - t0;
      t.diagnostic(`spawn to URL line ${Math.round(urlMs)} ms, to /readyz 200 ${Math.round(readyMs)} ms`);

      const stopAt = performance.now();
      run.child.kill('SIGTERM');
      assert.deepEqual(await run.exit, { code: 0, signal: null });
      t.diagnostic(`SIGTERM to exit ${Math.round(performance.now() - stopAt)} ms`);
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  },
);

test(
  'open: only its own page reads the file: its Host, its token, its origin, the file it was given',
  LIMIT,
  async () => {
    const file = path.join(dir, 'own.cm');
    const secret = path.join(dir, 'secret.txt');
    writeFileSync(file, RED);
    writeFileSync(secret, 'not for any page');
    const run = startOpen([file, '--json']);
    try {
      const { url } = JSON.parse(await run.line) as { url: string };
      const route = `${new URL(url).origin}/v1/open/source`;
      const host = new URL(url).host;
      const token = { [TOKEN]: tokenOf(url) };
      const ok = await rawGet(route, { ...token, host });
      assert.equal(ok.status, 200);
      assert.equal(ok.body, RED);
      // same-origin only: no CORS header on this route, not even the app's `*`
      assert.equal(ok.headers['access-control-allow-origin'], undefined);
      // its own origin, as a browser sends it on a same-origin request that carries one
      assert.equal((await rawGet(route, { ...token, host, origin: `http://${host}` })).status, 200);

      const refused = async (what: string, headers: Record<string, string>, pattern: RegExp) => {
        const r = await rawGet(route, headers);
        assert.equal(r.status, 403, `${what}: ${r.status} ${r.body}`);
        const body = JSON.parse(r.body) as { code: string; error: string };
        assert.equal(body.code, 'forbidden', what);
        assert.match(body.error, pattern, what);
        assert.equal(r.headers['access-control-allow-origin'], undefined, what);
        assert.doesNotMatch(r.body, /runner|not for any page/, what);
      };
      // a name rebound to 127.0.0.1 (DNS rebinding) is another Host, on every route of the service
      const port = new URL(url).port;
      await refused('a foreign Host', { ...token, host: `rebound.example:${port}` }, /Host must be 127\.0\.0\.1:/);
      await refused('localhost is not its address', { ...token, host: `localhost:${port}` }, /Host must be/);
      const health = await rawGet(`${new URL(url).origin}/healthz`, { host: `rebound.example:${port}` });
      assert.equal(health.status, 403);
      await refused('no token', { host }, /token/);
      await refused('a wrong token', { host, [TOKEN]: 'x'.repeat(32) }, /token/);
      await refused('another origin', { ...token, host, origin: 'http://127.0.0.1:1' }, /may not read/);

      // its own /mcp still reaches its routes (the calls it makes inside carry the caller's Host)
      const mcp = await fetch(`${new URL(url).origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'check_source', arguments: { source: RED } },
        }),
      });
      assert.equal(mcp.status, 200);
      const said = await mcp.text();
      assert.doesNotMatch(said, /forbidden|"isError":true/);
      assert.match(said, /"result"/);

      // a symlink swapped in at the path is not followed; a save by rename (a new regular file) is read again
      rmSync(file);
      symlinkSync(secret, file);
      const swapped = await rawGet(route, { ...token, host });
      assert.equal(swapped.status, 404);
      assert.doesNotMatch(swapped.body, /not for any page/);
      writeFileSync(`${file}.new`, BLUE);
      renameSync(`${file}.new`, file);
      const saved = await rawGet(route, { ...token, host });
      assert.equal(saved.status, 200);
      assert.equal(saved.body, BLUE);
      await until(
        '/readyz 200',
        async () => (await rawGet(`${new URL(url).origin}/readyz`, { host })).status === 200,
        WAIT_MS,
      );
      run.child.kill('SIGTERM');
      assert.deepEqual(await run.exit, { code: 0, signal: null }, run.stderr());
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  },
);

test('open: an unreadable file exits 66, a misuse 2, nothing on stdout', () => {
  const cases: [string[], number, RegExp][] = [
    [[path.join(dir, 'missing.cm')], 66, /^error: file not found: .*missing\.cm$/m],
    [[dir], 66, /^error: could not read .*: EISDIR/m],
    [[], 2, /`open` requires a source file argument/],
    [['a.cm', 'b.cm'], 2, /`open` serves one file/],
    [['a.cm', '--port', '70000'], 2, /--port must be 0 to 65535, not '70000'/],
    [['a.cm', '--port'], 2, /`--port` requires a port number/],
    [['a.cm', '--bogus'], 2, /unknown open flag '--bogus'/],
  ];
  for (const [args, status, msg] of cases) {
    const r = runServiceToEnd('open', {}, { args, cwd: process.cwd() });
    assert.equal(r.status, status, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    assert.match(r.stderr, msg, args.join(' '));
    if (status === 2) assert.match(r.stderr, /usage: cmrender open FILE \[--port N\] \[--browser\] \[--json\]/);
  }
});

test('open --port N: the port asked for; taken, it says so and exits 1', LIMIT, async () => {
  const file = path.join(dir, 'port.cm');
  writeFileSync(file, RED);
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = (taken.address() as { port: number }).port;
    const run = startOpen([file, '--port', String(port)]);
    assert.deepEqual(await run.exit, { code: 1, signal: null });
    assert.equal(run.stdout(), '');
    assert.match(run.stderr(), new RegExp(`error: port ${port} on 127\\.0\\.0\\.1 is in use`));
  } finally {
    taken.close();
  }
});
