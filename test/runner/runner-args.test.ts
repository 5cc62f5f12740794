// The standalone runner's POST / with scene arguments (real Chromium): args drawn, bad args a 400 invalid_args with
// one entry per problem before anything renders, unknown params keys a 400 invalid_params with did-you-mean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PNG } from 'pngjs';
import { buildRunnerApp } from '../../src/runner/runner-app.js';
import { realRenderer, silentLog } from '../helpers/app.js';

const renderer = realRenderer();
const tmpDir = mkdtempSync(join(tmpdir(), 'runner-args-'));
let app: FastifyInstance;
before(async () => {
  app = await buildRunnerApp({ renderer, log: silentLog, concurrency: 1, timeoutMs: 60_000, tmpDir });
  await renderer.start();
  await app.ready();
});
after(async () => {
  await app?.close();
  await renderer.close();
  rmSync(tmpDir, { recursive: true, force: true });
});

const source =
  'runner "0.0.3";\nuse std.shapes.*;\nscene card(accent: Color = #ff3399) -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: accent)]\n}\n';
const run = (body: unknown) =>
  app.inject({
    method: 'POST',
    url: '/',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

test('POST / draws the args: {accent: "#00ff00"} is green at the centre', async () => {
  const r = await run({ source, kind: 'frame', params: { width: 64 }, args: { accent: '#00ff00' } });
  assert.equal(r.statusCode, 200, r.body);
  const png = PNG.sync.read(r.rawPayload);
  const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
  assert.deepEqual([...png.data.subarray(i, i + 3)], [0, 255, 0]);
});

test('POST / with bad args: 400 invalid_args, one entry per problem', async () => {
  const r = await run({ source, kind: 'frame', args: { acent: '#00ff00' } });
  assert.equal(r.statusCode, 400, r.body);
  assert.equal(r.json().code, 'invalid_args');
  assert.deepEqual(
    r.json().problems.map((p: { path: string; message: string }) => [p.path, p.message]),
    [['args.acent', "args.acent is not a parameter of scene 'card'; did you mean 'accent'?"]],
  );
});

test('POST / with an unknown params key: 400 invalid_params with did-you-mean', async () => {
  const r = await run({ source, kind: 'frame', params: { widht: 64 } });
  assert.equal(r.statusCode, 400, r.body);
  assert.equal(r.json().code, 'invalid_params');
  assert.match(r.json().error, /^params\.widht is not a parameter of this kind; did you mean 'width'\?/);
});
