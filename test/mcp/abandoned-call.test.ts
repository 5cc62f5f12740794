// An MCP render call whose client goes (issue 55, row 1): the tool stops waiting and cancels the job it queued, so
// the render slot is freed, unless the call asked to keep it (`keep: true`; the job's id and URL come in the first
// progress notification). With the SDK's own client: over Streamable HTTP at /mcp (the client closes its connection)
// and over stdio with `cmrender mcp` (the client cancels the request: notifications/cancelled). The renderer is the
// project's fake one, held until the test lets it go: what is under test is the job's life, not the drawing.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { FakeRenderer, gate, ownExample, repoRoot, startApp, type TestApp } from '../helpers/app.js';
import { runJob, waitJob } from '../helpers/job-client.js';
import { until } from '../helpers/until.js';

const HELLO = ownExample('hello.cm');
const VIDEO = { source: HELLO, duration: 1, fps: 10, width: 160, height: 90 };

let t: TestApp;
let base: string;
const fake = new FakeRenderer();
/** the render signals the fake renderer was given, by job id: aborted when the job is cancelled */
const renders = new Map<string, AbortSignal>();
let release = gate();
before(async () => {
  t = await startApp({ renderer: fake });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  // every render holds its slot until the test releases it or the job is cancelled
  fake.behaviour = async (job, hooks) => {
    renders.set(job.id, hooks.signal);
    hooks.onProgress?.(0.1);
    await Promise.race([
      release.promise,
      new Promise<void>((_, reject) => hooks.signal.addEventListener('abort', () => reject(new Error('cancelled')))),
    ]);
  };
});
after(() => t.close());

/** Starts a render_video call and resolves the job id its first progress notification names, with the call's promise. */
async function callUntilQueued(c: Client, args: Record<string, unknown>, signal?: AbortSignal) {
  let named!: (id: string) => void;
  const id = new Promise<string>((r) => (named = r));
  const notes: Progress[] = [];
  const result = c.callTool({ name: 'render_video', arguments: args }, undefined, {
    signal,
    onprogress: (p) => {
      notes.push(p);
      const m = /job ([0-9a-f-]{36}) \((http[^)]+)\)/.exec(p.message ?? '');
      if (m) named(m[1]!);
    },
  });
  result.catch(() => {}); // the client's side of an abandoned call rejects; the service's side is under test
  return { id: await id, result, notes };
}

async function statusOf(id: string) {
  const r = await t.app.inject({ url: `/v1/jobs/${id}` });
  return r.json() as { status: string; code?: string };
}

test(
  'a render_video whose client disconnects over Streamable HTTP: its job ends cancelled and the slot is free',
  { timeout: 90_000 },
  async () => {
    release = gate();
    const c = new Client({ name: 'cmrender-test', version: '0.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const { id, notes } = await callUntilQueued(c, VIDEO);
    assert.match(notes[0]!.message!, new RegExp(`^job ${id} \\(${base}/v1/jobs/${id}\\): `));
    await until('the job is rendering', () => renders.has(id), 30_000);
    await c.close();
    const end = await waitJob(t.app, id, 30_000);
    assert.equal(end.statusCode, 500);
    assert.equal(end.json().code, 'cancelled');
    // the record ends cancelled first; its render's signal is aborted as the cancel reaches the item in hand
    await until('the render was stopped', () => renders.get(id)!.aborted, 30_000);
    // the one render slot is free: a frame queued now is drawn (its render is let through at once)
    release.open();
    const next = await runJob(t.app, '/v1/frame', { source: HELLO, params: { width: 32, height: 16 } });
    assert.equal(next.json().status, 'ready');
  },
);

test(
  'keep: true: the client disconnects, the job named in the first progress notification goes on to ready',
  { timeout: 90_000 },
  async () => {
    release = gate();
    const c = new Client({ name: 'cmrender-test', version: '0.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const kept = await callUntilQueued(c, { ...VIDEO, keep: true });
    await until('the kept job is rendering', () => renders.has(kept.id), 30_000);
    // a second call on the same client, not kept, waits in line behind it: its cancel shows the close was seen
    const other = await callUntilQueued(c, VIDEO);
    await c.close();
    const gone = await waitJob(t.app, other.id, 30_000);
    assert.equal(gone.json().code, 'cancelled');
    assert.equal((await statusOf(kept.id)).status, 'pending');
    assert.equal(renders.get(kept.id)!.aborted, false);
    release.open();
    const end = await waitJob(t.app, kept.id, 30_000);
    assert.equal(end.json().status, 'ready');
  },
);

test(
  'cmrender mcp over stdio: a call the client cancels (notifications/cancelled) cancels its job',
  { timeout: 90_000 },
  async () => {
    release = gate();
    const c = new Client({ name: 'cmrender-test', version: '0.0.0' });
    await c.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(repoRoot, 'bin', 'cmrender.js'), 'mcp', '--url', base],
        stderr: 'pipe',
      }),
    );
    try {
      const abort = new AbortController();
      const { id, result } = await callUntilQueued(c, VIDEO, abort.signal);
      await until('the job is rendering', () => renders.has(id), 30_000);
      abort.abort();
      await assert.rejects(result);
      const end = await waitJob(t.app, id, 30_000);
      assert.equal(end.json().code, 'cancelled');
      release.open();
      const next = await runJob(t.app, '/v1/frame', { source: HELLO, params: { width: 32, height: 16 } });
      assert.equal(next.json().status, 'ready');
    } finally {
      await c.close();
    }
  },
);
