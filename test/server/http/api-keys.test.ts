// Optional API keys and POST rate limits (embedded mode): off by default; with API_KEYS every write under /v1/ needs
// `Authorization: Bearer <key>` (401 otherwise) while reads stay open unless API_KEYS_READS; RATE_LIMIT_POSTS POSTs
// per window per key (or per address) pass, the next is 429 with Retry-After and the IETF RateLimit fields;
// MAX_QUEUED_JOBS_PER_CLIENT jobs in hand per key (or address), the next is 429 client_queue_full.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startApp, FakeRenderer, gate, type TestApp } from '../../helpers/app.js';
import { waitJob } from '../../helpers/job-client.js';
import { parseExposition, valueOf } from '../../helpers/prometheus.js';
import type { Config } from '../../../src/config/settings.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const apps: TestApp[] = [];
const dirs: string[] = [];
after(async () => {
  for (const a of apps) await a.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function app(config: Partial<Config>) {
  const t = await startApp({ renderer: new FakeRenderer(), config });
  apps.push(t);
  return t.app;
}
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
function frame(a: FastifyInstance, key?: string, ip?: string) {
  return a.inject({
    method: 'POST',
    url: '/v1/frame',
    payload: JSON.stringify({ source: SRC }),
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    ...(ip ? { remoteAddress: ip } : {}),
  });
}

test('without API_KEYS nothing asks for a key (the contract v0)', async () => {
  const a = await app({});
  assert.equal((await frame(a)).statusCode, 202);
});

test('API_KEYS as a list (a plain key and a sha256: one): 401 without or with an unknown key, 202 with either', async () => {
  const a = await app({ apiKeys: `k-plain-1, sha256:${sha256('k-hashed-2')}` });
  const none = await frame(a);
  assert.equal(none.statusCode, 401);
  assert.deepEqual(none.json(), { error: 'an API key is needed: Authorization: Bearer <key>', code: 'unauthorized' });
  assert.equal(none.headers['www-authenticate'], 'Bearer');
  const wrong = await frame(a, 'k-plain-2');
  assert.equal(wrong.statusCode, 401);
  assert.equal(wrong.json().code, 'unauthorized');
  assert.equal((await frame(a, `sha256:${sha256('k-hashed-2')}`)).statusCode, 401, 'the hash is not the key');
  const ok = await frame(a, 'k-plain-1');
  assert.equal(ok.statusCode, 202);
  assert.equal((await frame(a, 'k-hashed-2')).statusCode, 202);

  // reads by id stay open; a DELETE is a write
  const id = ok.json().job_id;
  assert.equal((await waitJob(a, id)).statusCode, 200);
  assert.equal((await a.inject({ url: `/v1/jobs/${id}` })).statusCode, 200);
  const del = await a.inject({ method: 'DELETE', url: `/v1/jobs/${id}` });
  assert.equal(del.statusCode, 401);
  const delKey = await a.inject({
    method: 'DELETE',
    url: `/v1/jobs/${id}`,
    headers: { authorization: 'Bearer k-plain-1' },
  });
  assert.equal(delKey.statusCode, 409, 'past the key: the job had ended');
  // a CORS preflight and the service's own routes need no key
  assert.equal(
    (
      await a.inject({
        method: 'OPTIONS',
        url: '/v1/frame',
        headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' },
      })
    ).statusCode,
    204,
  );
  for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json'])
    assert.equal((await a.inject({ url })).statusCode, 200, url);
});

test('API_KEYS as a file of hashed keys, API_KEYS_READS=on: reads need a key too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cmrender-keys-'));
  dirs.push(dir);
  const file = join(dir, 'keys');
  writeFileSync(file, `# team keys\nsha256:${sha256('alpha')}\n\nsha256:${sha256('beta')}  # ci\n`);
  const a = await app({ apiKeys: file, apiKeysReads: true });
  assert.equal((await frame(a)).statusCode, 401);
  const posted = await frame(a, 'beta');
  assert.equal(posted.statusCode, 202);
  const url = `/v1/jobs/${posted.json().job_id}`;
  assert.equal((await a.inject({ url })).statusCode, 401);
  assert.equal((await a.inject({ url, headers: { authorization: 'Bearer beta' } })).statusCode, 200);
  // keys are tenants: another known key does not reach beta's job
  assert.equal((await a.inject({ url, headers: { authorization: 'Bearer alpha' } })).statusCode, 404);
});

/** The IETF fields of an answer, parsed. */
function rateFields(r: { headers: Record<string, unknown> }) {
  const policy = /^"posts";q=(\d+);w=(\d+)$/.exec(String(r.headers['ratelimit-policy']));
  const now = /^"posts";r=(\d+);t=(\d+)$/.exec(String(r.headers.ratelimit));
  assert.ok(policy && now, `RateLimit-Policy ${r.headers['ratelimit-policy']}, RateLimit ${r.headers.ratelimit}`);
  return { q: Number(policy[1]), w: Number(policy[2]), r: Number(now[1]), t: Number(now[2]) };
}

test('RATE_LIMIT_POSTS=3 per address: 3 POSTs pass with RateLimit fields counting down, the 4th is 429; GETs are free', async () => {
  const a = await app({ rateLimitPosts: 3, rateLimitWindowMs: 60_000 });
  const remaining = [];
  for (let i = 0; i < 3; i++) {
    const r = await frame(a);
    assert.equal(r.statusCode, 202);
    const f = rateFields(r);
    assert.deepEqual([f.q, f.w], [3, 60]);
    assert.ok(f.t >= 1 && f.t <= 60);
    remaining.push(f.r);
    assert.equal((await a.inject({ url: `/v1/jobs/${r.json().job_id}` })).statusCode, 200);
  }
  assert.deepEqual(remaining, [2, 1, 0]);
  const over = await frame(a);
  assert.equal(over.statusCode, 429);
  assert.equal(over.json().code, 'rate_limited');
  assert.match(over.json().error, /3 POSTs per 60 s/);
  const retry = Number(over.headers['retry-after']);
  assert.ok(retry >= 1 && retry <= 60, `retry-after ${retry}`);
  const f = rateFields(over);
  assert.deepEqual([f.q, f.w, f.r], [3, 60, 0]);
  // another address has its own budget
  assert.equal((await frame(a, undefined, '10.0.0.9')).statusCode, 202);
});

test('with keys the budget is per key: one key at its limit does not stop another; a 401 spends nothing', async () => {
  const a = await app({ apiKeys: 'key-a,key-b', rateLimitPosts: 2 });
  for (let i = 0; i < 3; i++) assert.equal((await frame(a)).statusCode, 401);
  assert.equal((await frame(a, 'key-a')).statusCode, 202);
  assert.equal((await frame(a, 'key-a')).statusCode, 202);
  assert.equal((await frame(a, 'key-a')).statusCode, 429);
  const b = await frame(a, 'key-b');
  assert.equal(b.statusCode, 202);
  assert.equal(rateFields(b).r, 1);
  // the refusals are counted by code in the metrics
  const samples = parseExposition((await a.inject({ url: '/metrics' })).body);
  assert.equal(valueOf(samples, 'cmrender_jobs_refused_total', { code: 'unauthorized' }), 3);
  assert.equal(valueOf(samples, 'cmrender_jobs_refused_total', { code: 'rate_limited' }), 1);
});

test('MAX_QUEUED_JOBS_PER_CLIENT=2: a client with 2 jobs in hand gets 429 client_queue_full; others pass; an end frees a place', async () => {
  const fake = new FakeRenderer();
  const hold = gate();
  fake.behaviour = () => hold.promise;
  const t = await startApp({ renderer: fake, config: { apiKeys: 'q-a,q-b', maxQueuedJobsPerClient: 2 } });
  apps.push(t);
  const a = t.app;
  const first = await frame(a, 'q-a');
  assert.equal(first.statusCode, 202);
  assert.equal((await frame(a, 'q-a')).statusCode, 202);
  const over = await frame(a, 'q-a');
  assert.equal(over.statusCode, 429);
  assert.equal(over.json().code, 'client_queue_full');
  assert.ok(Number(over.headers['retry-after']) >= 1);
  assert.equal((await frame(a, 'q-b')).statusCode, 202, 'another key has its own places');
  // a cancel ends a job: its place is free again, at once
  const del = await a.inject({
    method: 'DELETE',
    url: `/v1/jobs/${first.json().job_id}`,
    headers: { authorization: 'Bearer q-a' },
  });
  assert.equal(del.statusCode, 200);
  assert.equal((await frame(a, 'q-a')).statusCode, 202);
  assert.equal((await frame(a, 'q-a')).statusCode, 429);
  hold.open();
});
