// /mcp answers carry the CORS headers and the x-request-id like every other answer (issue 55, row 5). The route
// hands its reply to the MCP transport (a hijack), and Fastify then sent none of the headers its hooks had set: the
// preflight said `*`, and the answer itself had no access-control-allow-origin, so a browser refused it. The same
// for the job events stream's x-request-id. Real headers over loopback: the preflight, then the answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startApp, FakeRenderer, ownExample, UUID_V4, type TestApp } from '../../helpers/app.js';
import { post } from '../../helpers/job-client.js';

const ORIGIN = 'http://agent.example';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser-agent', version: '0' } },
};

let t: TestApp;
let base: string;
before(async () => {
  t = await startApp({ renderer: new FakeRenderer() });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

/** The CORS headers a browser reads on an actual answer (not a preflight). */
function assertCors(r: Response) {
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  assert.equal(r.headers.get('access-control-expose-headers'), '*');
  assert.equal(r.headers.get('access-control-allow-headers'), '*, authorization');
  assert.equal(r.headers.get('access-control-allow-methods'), '*');
}

test('the preflight of a browser call to /mcp says yes', async () => {
  const r = await fetch(`${base}/mcp`, {
    method: 'OPTIONS',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, authorization, mcp-protocol-version',
    },
  });
  assert.equal(r.status, 204);
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  assert.match(String(r.headers.get('access-control-allow-headers')), /authorization/);
});

test('the answer to a POST /mcp (initialize, a tool call) carries the CORS headers and the caller x-request-id', async () => {
  const init = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, origin: ORIGIN, 'x-request-id': 'agent-trace-1' },
    body: JSON.stringify(INITIALIZE),
  });
  assert.equal(init.status, 200);
  assertCors(init);
  assert.equal(init.headers.get('x-request-id'), 'agent-trace-1');
  assert.match(await init.text(), /"serverInfo":\{"name":"cmrender"/);

  const call = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, origin: ORIGIN },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'check_source', arguments: { source: ownExample('hello.cm') } },
    }),
  });
  assert.equal(call.status, 200);
  assertCors(call);
  assert.match(String(call.headers.get('x-request-id')), UUID_V4, 'a fresh id when the caller sent none');
  assert.match(await call.text(), /ok: the source compiles/);

  // a notification only: the transport answers 202 with no body, with the headers too
  const note = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, origin: ORIGIN, 'x-request-id': 'agent-trace-2' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(note.status, 202);
  assertCors(note);
  assert.equal(note.headers.get('x-request-id'), 'agent-trace-2');
});

test('the job events stream (also a hijacked answer) echoes the x-request-id', async () => {
  const q = await post(t.app, '/v1/frame', { source: ownExample('hello.cm'), params: { width: 32, height: 16 } });
  assert.equal(q.statusCode, 202);
  const r = await fetch(`${base}/v1/jobs/${q.json().job_id}/events`, {
    headers: { origin: ORIGIN, 'x-request-id': 'events-trace-1' },
  });
  assert.equal(r.status, 200);
  assertCors(r);
  assert.equal(r.headers.get('x-request-id'), 'events-trace-1');
  await r.body?.cancel();
});
