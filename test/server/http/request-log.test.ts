// The request log: one `info` line per request (method, route, status, milliseconds, request id), and the request
// id: a client's safe `x-request-id` is kept and echoed, an unsafe or over-long one is replaced by a fresh UUID.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { buildApp } from '../../../src/server/app.js';
import { defaultConfig } from '../../../src/config/settings.js';
import { FakeRenderer, UUID_V4 } from '../../helpers/app.js';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});
const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-reqlog-'));
const app = await buildApp({
  config: { ...defaultConfig(), dataDir, renderConcurrency: 1 },
  renderer: new FakeRenderer(),
  logger: pino({ level: 'info' }, sink),
});
await app.ready();
after(async () => {
  await app.close();
  await rm(dataDir, { recursive: true, force: true });
});
const requestLines = (id: string) => lines.filter((l) => l.event === 'request' && l.request_id === id);

test('a request is logged at info with method, route, status, time and its id, which the answer echoes', async () => {
  const r = await app.inject({ method: 'GET', url: '/v1/jobs/7f1c0a52-4b1e-4c8e-9d6a-2f0e9b7c1a33' });
  assert.equal(r.statusCode, 404);
  const id = r.headers['x-request-id'] as string;
  assert.match(id, UUID_V4, 'a fresh id when the client sends none');
  const [line, ...more] = requestLines(id);
  assert.equal(more.length, 0, 'one line per request');
  assert.equal(line!.level, 30, 'info');
  assert.equal(line!.method, 'GET');
  assert.equal(line!.route, '/v1/jobs/:id');
  assert.equal(line!.status, 404);
  assert.equal(typeof line!.ms, 'number');
});

test("a client's x-request-id is kept when safe (up to 128 of [A-Za-z0-9._:-]), replaced when not", async () => {
  const at = 'a'.repeat(128);
  const cases: [string, boolean][] = [
    ['trace-01.ab:CD_9', true],
    [at, true],
    [at + 'a', false],
    ['two words', false],
    ['x"}{\\n', false],
  ];
  for (const [given, kept] of cases) {
    const r = await app.inject({ method: 'POST', url: '/v1/check', headers: { 'x-request-id': given }, payload: {} });
    const echoed = r.headers['x-request-id'] as string;
    if (kept) assert.equal(echoed, given);
    else assert.match(echoed, UUID_V4, `${given.slice(0, 20)}… replaced`);
    assert.equal(requestLines(echoed).length, 1);
    assert.equal(requestLines(echoed)[0]!.route, '/v1/check');
  }
});

test('the probes are logged at debug only', async () => {
  const r = await app.inject({ url: '/healthz' });
  assert.equal(r.statusCode, 200);
  assert.equal(requestLines(r.headers['x-request-id'] as string).length, 0);
});
