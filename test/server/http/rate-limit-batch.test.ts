// The POST rate limit counts each request on its own (issue 55, row 4): requests counted in the same tick each read
// their own count. Before, the plugin's local store answered every request of a client with one shared object, read
// after an await: with RATE_LIMIT_POSTS=3, a JSON-RPC batch of four MCP calls (made in-process at once) was refused
// whole, four 429s and nothing done, and four concurrent POSTs all read the fourth count.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startApp, FakeRenderer, ownExample, type TestApp } from '../../helpers/app.js';
import { post } from '../../helpers/job-client.js';
import { LocalWindowStore } from '../../../src/server/http/rate-limit-store.js';

const HELLO = ownExample('hello.cm');
const apps: TestApp[] = [];
after(() => Promise.all(apps.map((t) => t.close())));

async function limited(max: number) {
  const t = await startApp({
    renderer: new FakeRenderer(),
    config: { rateLimitPosts: max, rateLimitWindowMs: 60_000 },
  });
  apps.push(t);
  return t.app;
}

test('RATE_LIMIT_POSTS=3, four POSTs at once: three 202 counting down 2, 1, 0, one 429', async () => {
  const app = await limited(3);
  const answers = await Promise.all(
    Array.from({ length: 4 }, () => post(app, '/v1/frame', { source: HELLO, params: { width: 32, height: 16 } })),
  );
  assert.deepEqual(answers.map((r) => r.statusCode).sort(), [202, 202, 202, 429]);
  const left = answers.filter((r) => r.statusCode === 202).map((r) => Number(r.headers['ratelimit-remaining']));
  assert.deepEqual(left.sort(), [0, 1, 2]);
  const over = answers.find((r) => r.statusCode === 429)!;
  assert.equal(over.json().code, 'rate_limited');
});

test('RATE_LIMIT_POSTS=3, a JSON-RPC batch of four MCP tool calls: three answered, one refused 429 rate_limited', async () => {
  const app = await limited(3);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`;
  const batch = Array.from({ length: 4 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i + 1,
    method: 'tools/call',
    params: { name: 'check_source', arguments: { source: HELLO } },
  }));
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(batch),
  });
  assert.equal(r.status, 200);
  // the answers come as Server-Sent Events, one JSON-RPC message each
  const messages = (await r.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as { id: number; result: { isError?: boolean; content: { text: string }[] } });
  assert.deepEqual(messages.map((m) => m.id).sort(), [1, 2, 3, 4]);
  const texts = messages.map((m) => m.result.content[0]!.text);
  const ok = texts.filter((t) => /^ok: the source compiles/.test(t));
  const refused = texts.filter((t) => /HTTP 429 rate_limited/.test(t));
  assert.equal(ok.length, 3, texts.join('\n'));
  assert.equal(refused.length, 1, texts.join('\n'));
  // the budget is spent: a fifth POST is refused too
  assert.equal((await post(app, '/v1/check', { source: HELLO })).statusCode, 429);
});

test('the in-process counts keep 5,000 clients: at 5,000 the first keeps its count, at 5,001 its window is the one let go', () => {
  const store = new LocalWindowStore();
  const count = (key: string) => {
    let got = -1;
    store.incr(key, (_e, r) => (got = r!.current), 60_000);
    return got;
  };
  assert.equal(count('client-0'), 1);
  for (let i = 1; i < 5_000; i++) count(`client-${i}`);
  assert.equal(count('client-0'), 2, 'at 5,000 clients every window is kept');
  count('client-5000');
  assert.equal(count('client-1'), 1 + 1, 'client-1 is kept');
  assert.equal(count('client-0'), 1, 'past 5,000 the window begun first is let go');
});
