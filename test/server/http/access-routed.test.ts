// Access is decided on the routed request and fails closed (hostile round 3, rows 1, 2 and 14): keys, API_KEYS_READS
// and the POST rate limit look at the route the router matched, so a percent-encoded path (`/%761/frame`) or an
// absolute-form target (`POST http://host/v1/frame`) is asked for a key like `/v1/frame`; an API_KEYS file that is
// missing stops the start; keys are tenants: another key's job, output, events and cancel answer 404.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { once } from 'node:events';
import { startApp, FakeRenderer, gate, type TestApp } from '../../helpers/app.js';
import { waitJob } from '../../helpers/job-client.js';
import { ApiKeys } from '../../../src/server/http/api-keys.js';
import type { Config } from '../../../src/config/settings.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const apps: TestApp[] = [];
const dirs: string[] = [];
after(async () => {
  for (const a of apps) await a.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function listening(config: Partial<Config>, renderer = new FakeRenderer()) {
  const t = await startApp({ renderer, config });
  apps.push(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return { app: t.app, port: addr.port };
}

/** One request written byte for byte (the target as given, unnormalised), its status and body. */
function raw(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let data = '';
    sock.setEncoding('latin1');
    sock.on('data', (d: string) => (data += d));
    sock.on('error', reject);
    sock.on('end', () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (!m) return reject(new Error(`no status line in ${JSON.stringify(data.slice(0, 200))}`));
      resolve({ status: Number(m[1]), body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    const head = {
      host: `127.0.0.1:${port}`,
      connection: 'close',
      ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
      ...headers,
    };
    sock.write(
      `${method} ${target} HTTP/1.1\r\n` +
        Object.entries(head)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('') +
        '\r\n' +
        body,
    );
  });
}
const FRAME = JSON.stringify({ source: SRC });

/** A fake renderer whose renders wait for open() (or their cancel). */
function held() {
  const g = gate();
  const renderer = new FakeRenderer();
  renderer.behaviour = async (_job, hooks) => {
    await Promise.race([g.promise, once(hooks.signal, 'abort')]);
  };
  return { renderer, open: g.open };
}

const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

test('a percent-encoded path or an absolute-form target is asked for a key like /v1/frame (no key: 401)', async () => {
  const { port } = await listening({ apiKeys: 'k-alice' });
  for (const target of [
    '/v1/frame',
    '/%761/frame',
    '/v%31/frame',
    '/%76%31/%66rame',
    `http://127.0.0.1:${port}/v1/frame`,
    `http://127.0.0.1:${port}/%761/frame`,
  ]) {
    const r = await raw(port, 'POST', target, {}, FRAME);
    // a target the router does not route is a 404 and makes no job; any routed one needs the key
    assert.ok(r.status === 401 || r.status === 404, `${target}: ${r.status} ${r.body}`);
    assert.notEqual(r.status, 202, target);
  }
  assert.equal((await raw(port, 'POST', '/%761/frame', bearer('k-alice'), FRAME)).status, 202);
});

test('API_KEYS_READS=on: an encoded path reads no job, no output and cancels nothing without a key', async () => {
  const gateR = held();
  const { app, port } = await listening({ apiKeys: 'k-alice', apiKeysReads: true }, gateR.renderer);
  const made = await raw(port, 'POST', '/v1/frame', bearer('k-alice'), FRAME);
  assert.equal(made.status, 202);
  const id = JSON.parse(made.body).job_id as string;
  for (const [method, target] of [
    ['GET', `/%761/jobs/${id}`],
    ['GET', `http://127.0.0.1:${port}/v1/jobs/${id}`],
    ['GET', `/%761/jobs/${id}/events`],
    ['DELETE', `/%761/jobs/${id}`],
    ['DELETE', `http://127.0.0.1:${port}/v1/jobs/${id}`],
  ] as const) {
    const r = await raw(port, method, target);
    assert.equal(r.status, 401, `${method} ${target}: ${r.status} ${r.body}`);
  }
  gateR.open();
  const done = await waitJob(app, id, { headers: bearer('k-alice') });
  assert.equal(done.json().status, 'ready', 'the DELETEs without a key cancelled nothing');
  const url = done.json().url as string;
  assert.equal((await raw(port, 'GET', url.replace('/v1/', '/%761/'))).status, 401);
  assert.equal((await raw(port, 'GET', url.replace('/v1/', '/%761/'), bearer('k-alice'))).status, 200);
});

test('RATE_LIMIT_POSTS=3 counts encoded and absolute-form targets: the 4th POST is 429 whichever spelling', async () => {
  const { port } = await listening({ rateLimitPosts: 3, rateLimitWindowMs: 600_000 });
  const targets = ['/v1/frame', '/%761/frame', `http://127.0.0.1:${port}/v1/frame`, '/v%31/frame', '/%761/frame'];
  const statuses: number[] = [];
  for (const target of targets) statuses.push((await raw(port, 'POST', target, {}, FRAME)).status);
  assert.deepEqual(statuses, [202, 202, 202, 429, 429]);
});

test('API_KEYS naming a missing or unreadable file stops the start with one clear line; its path is no key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cmrender-keys-'));
  dirs.push(dir);
  const missing = join(dir, 'keys-typo');
  assert.throws(() => ApiKeys.load(missing), /API_KEYS names the file .*keys-typo, which does not exist/);
  assert.throws(() => ApiKeys.load('./no-such-keys-file'), /which does not exist/);
  await assert.rejects(startApp({ renderer: new FakeRenderer(), config: { apiKeys: missing } }), /does not exist/);
  assert.throws(() => ApiKeys.load(dir), /API_KEYS names the file .*, which cannot be read/);
  const empty = join(dir, 'empty');
  writeFileSync(empty, '# nothing yet\n');
  assert.throws(() => ApiKeys.load(empty), /names no key/);
  const good = join(dir, 'keys');
  writeFileSync(good, 'k-one\n');
  chmodSync(good, 0o600);
  const keys = ApiKeys.load(good)!;
  assert.ok(keys, 'a readable file loads');
  // a comma-separated list is still a list
  assert.ok(ApiKeys.load('a-key,b-key'));
});

/** Makes a job with alice's key and keeps it rendering (the gate) so a cancel would take. */
async function tenants(config: Partial<Config> = {}) {
  const g = held();
  const { app, port } = await listening({ apiKeys: 'k-alice,k-bob', ...config }, g.renderer);
  return { app, port, g };
}
async function post(app: FastifyInstance, key: string, body = FRAME, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/v1/frame',
    payload: body,
    headers: { 'content-type': 'application/json', ...bearer(key), ...headers },
  });
}

test("keys are tenants: bob's key gets 404 for alice's job, its events, its output and its cancel", async () => {
  const { app, g } = await tenants();
  const made = await post(app, 'k-alice');
  assert.equal(made.statusCode, 202);
  const id = made.json().job_id as string;
  const as = (key: string, method: 'GET' | 'DELETE', url: string) => app.inject({ method, url, headers: bearer(key) });
  assert.equal((await as('k-bob', 'GET', `/v1/jobs/${id}`)).statusCode, 404);
  const bobEvents = await as('k-bob', 'GET', `/v1/jobs/${id}/events`);
  assert.equal(bobEvents.statusCode, 404);
  // word for word an unknown job's 404 (its id named in the message): nothing says the job exists
  const unknown = '00000000-0000-4000-8000-000000000000';
  const unknownBody = (await as('k-bob', 'GET', `/v1/jobs/${unknown}`)).json() as { message: string };
  assert.deepEqual(bobEvents.json(), { ...unknownBody, message: unknownBody.message.replace(unknown, id) });
  assert.deepEqual((await as('k-bob', 'GET', `/v1/jobs/${id}`)).json(), bobEvents.json());
  const bobCancel = await as('k-bob', 'DELETE', `/v1/jobs/${id}`);
  assert.equal(bobCancel.statusCode, 404);
  assert.equal(bobCancel.json().code, 'not_found');
  assert.equal((await as('k-alice', 'GET', `/v1/jobs/${id}`)).json().status, 'pending', "bob's DELETE stopped nothing");
  g.open();
  const done = await waitJob(app, id, { headers: bearer('k-alice') });
  assert.equal(done.json().status, 'ready');
  const url = done.json().url as string;
  assert.equal((await as('k-bob', 'GET', url)).statusCode, 404);
  assert.equal((await as('k-alice', 'GET', url)).statusCode, 200);
  assert.equal((await as('k-alice', 'GET', `/v1/jobs/${id}`)).statusCode, 200);
  // the owner is no field of the view
  assert.equal('owner' in done.json(), false);
});

test("keys are tenants: alice cancels her own running job; bob's identical Idempotency-Key makes his own job", async () => {
  const { app } = await tenants();
  const made = await post(app, 'k-alice', FRAME, { 'idempotency-key': 'same-key-1' });
  const id = made.json().job_id as string;
  const bob = await post(app, 'k-bob', FRAME, { 'idempotency-key': 'same-key-1' });
  assert.equal(bob.statusCode, 202);
  assert.notEqual(bob.json().job_id, id, "one key's Idempotency-Key never answers another key's job");
  const bobOther = await post(app, 'k-bob', JSON.stringify({ source: SRC + '\n' }), {
    'idempotency-key': 'same-key-1',
  });
  assert.equal(bobOther.statusCode, 422, "bob's own key still guards his own requests");
  const again = await post(app, 'k-alice', FRAME, { 'idempotency-key': 'same-key-1' });
  assert.equal(again.json().job_id, id);
  const del = await app.inject({ method: 'DELETE', url: `/v1/jobs/${id}`, headers: bearer('k-alice') });
  assert.equal(del.statusCode, 200);
  assert.equal(del.json().code, 'cancelled');
});

test('keys are tenants but reads without a key stay open when API_KEYS_READS is off (by the unguessable id)', async () => {
  const { app, g } = await tenants();
  const id = (await post(app, 'k-alice')).json().job_id as string;
  g.open();
  const done = await waitJob(app, id, { headers: bearer('k-alice') });
  assert.equal((await app.inject({ url: `/v1/jobs/${id}` })).statusCode, 200);
  assert.equal((await app.inject({ url: done.json().url })).statusCode, 200);
});
