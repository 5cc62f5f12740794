// The MCP server (src/mcp/tools.ts) as agents meet it, with the SDK's own client: `/mcp` on the service over
// Streamable HTTP (real Chromium) and `cmrender mcp` over stdio talking to that service by HTTP. A render through MCP
// is a job like any other: the same bytes as /v1/frame, the same keys.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FakeRenderer, ownExample, realRenderer, repoRoot, startApp, type TestApp } from '../helpers/app.js';
import { runJob } from '../helpers/job-client.js';
import { diagnosticDoc } from '../../src/lang/diagnostic-docs.js';

const HELLO = ownExample('hello.cm');
const BROKEN = HELLO.replace('compose [bg, square]', 'compose [bg, sqare]');
const TOOLS = [
  'check_source',
  'describe_scene',
  'explain_diagnostic',
  'render_batch',
  'render_frame',
  'render_gif',
  'render_video',
];

let t: TestApp;
let base: string;
before(async () => {
  t = await startApp({ renderer: realRenderer() });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

async function connect(url: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'cmrender-test', version: '0.0.0' });
  const init = key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), init));
  return client;
}

const call = (c: Client, name: string, args: Record<string, unknown>) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) =>
  r.content
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('\n');

test('/mcp lists the tools and the resources (the language reference, each example)', async () => {
  const c = await connect(`${base}/mcp`);
  try {
    assert.deepEqual((await c.listTools()).tools.map((x) => x.name).sort(), TOOLS);
    const res = (await c.listResources()).resources.map((r) => r.uri);
    assert.ok(res.includes('cmrender://docs/language'), res.join());
    assert.ok(res.includes('cmrender://examples/hello.cm'), res.join());
    const hello = await c.readResource({ uri: 'cmrender://examples/hello.cm' });
    assert.equal((hello.contents[0] as { text: string }).text, HELLO);
    const ref = await c.readResource({ uri: 'cmrender://docs/language' });
    assert.match((ref.contents[0] as { text: string }).text, /NAM003/);
  } finally {
    await c.close();
  }
});

test('render_frame answers the PNG /v1/frame renders for the same source and params', async () => {
  const c = await connect(`${base}/mcp`);
  try {
    const r = await call(c, 'render_frame', { source: HELLO, width: 320, height: 180 });
    assert.ok(!r.isError, textOf(r));
    const img = r.content.find((p) => p.type === 'image') as { data: string; mimeType: string };
    assert.equal(img.mimeType, 'image/png');
    const bytes = Buffer.from(img.data, 'base64');
    const png = PNG.sync.read(bytes);
    assert.deepEqual([png.width, png.height], [320, 180]);
    const url = textOf(r).split(' ')[0]!;
    assert.ok(url.startsWith(`${base}/v1/outputs/`), url);
    const job = await runJob(t.app, '/v1/frame', { source: HELLO, params: { width: 320, height: 180 } });
    const direct = await t.app.inject({ url: job.json().url });
    assert.ok(direct.rawPayload.equals(bytes), 'the same bytes as /v1/frame');
  } finally {
    await c.close();
  }
});

test('a broken source: check_source and render_frame answer the code and its explanation', async () => {
  const c = await connect(`${base}/mcp`);
  try {
    const nam = diagnosticDoc('NAM003')!;
    const checked = await call(c, 'check_source', { source: BROKEN });
    assert.ok(!checked.isError);
    assert.match(textOf(checked), /NAM003 at 10:16: unknown identifier 'sqare'; did you mean 'square'\?/);
    assert.ok(textOf(checked).includes(nam.explanation));
    assert.deepEqual((checked.structuredContent as { ok: boolean }).ok, false);
    const r = await call(c, 'render_frame', { source: BROKEN });
    assert.equal(r.isError, true);
    assert.match(
      textOf(r),
      /failed: NAM003 unknown identifier 'sqare'; did you mean 'square'\? at line 10, column 16 \(code NAM003\)/,
    );
    assert.ok(textOf(r).includes(nam.explanation));
    const ex = await call(c, 'explain_diagnostic', { code: 'nam003' });
    assert.ok(textOf(ex).startsWith(`NAM003: ${nam.title}`));
    const unknown = await call(c, 'explain_diagnostic', { code: 'XYZ999' });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /HTTP 404 not_found/);
  } finally {
    await c.close();
  }
});

test('render_video reports progress and ends with a URL that downloads an MP4', async () => {
  const c = await connect(`${base}/mcp`);
  try {
    const seen: number[] = [];
    const r = (await c.callTool(
      { name: 'render_video', arguments: { source: HELLO, duration: 1, fps: 10, width: 160, height: 90 } },
      undefined,
      { onprogress: (p) => seen.push(p.progress) },
    )) as CallToolResult;
    assert.ok(!r.isError, textOf(r));
    assert.ok(seen.length >= 1, 'at least one progress notification');
    const facts = r.structuredContent as { url: string; mime: string; width: number; frames: number };
    assert.deepEqual([facts.mime, facts.width, facts.frames], ['video/mp4', 160, 10]);
    const got = await fetch(facts.url);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'video/mp4');
    assert.ok((await got.arrayBuffer()).byteLength > 0);
  } finally {
    await c.close();
  }
});

test('with API_KEYS, /mcp needs a key: 401 in the error envelope without one, the tools with it', async () => {
  // only the keys are under test here (no render): the project's fake renderer
  const keyed = await startApp({ renderer: new FakeRenderer(), config: { apiKeys: 'mcp-test-key' } });
  try {
    await keyed.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(keyed.app.server.address() as AddressInfo).port}/mcp`;
    const raw = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    assert.equal(raw.status, 401);
    assert.equal(raw.headers.get('www-authenticate'), 'Bearer');
    assert.equal(((await raw.json()) as { code: string }).code, 'unauthorized');
    // the SDK's StreamableHTTPError carries the status as its code
    const is401 = (e: unknown) => (e as { code?: number }).code === 401 && /unauthorized/.test(String(e));
    await assert.rejects(connect(url), is401);
    await assert.rejects(connect(url, 'wrong-key'), is401);
    const c = await connect(url, 'mcp-test-key');
    try {
      const r = await call(c, 'check_source', { source: HELLO });
      assert.ok(!r.isError, textOf(r));
      assert.match(textOf(r), /^ok/);
    } finally {
      await c.close();
    }
  } finally {
    await keyed.close();
  }
});

test('cmrender mcp over stdio lists the tools and checks a source through the service; an agent transcript', async (tt) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repoRoot, 'bin', 'cmrender.js'), 'mcp', '--url', base],
    stderr: 'pipe',
  });
  const c = new Client({ name: 'cmrender-test', version: '0.0.0' });
  await c.connect(transport);
  try {
    assert.deepEqual((await c.listTools()).tools.map((x) => x.name).sort(), TOOLS);
    const lines: string[] = [];
    const say = (who: string, s: string) => lines.push(`${who}: ${s}`);
    say('agent', 'check_source {source: hello.cm with `sqare` for `square`}');
    const broken = await call(c, 'check_source', { source: BROKEN });
    assert.match(textOf(broken), /NAM003/);
    say('cmrender', textOf(broken));
    say('agent', 'check_source {source: the fixed source}');
    const fixed = await call(c, 'check_source', { source: HELLO });
    assert.match(textOf(fixed), /^ok/);
    say('cmrender', textOf(fixed));
    say('agent', 'render_frame {source, width: 320, height: 180}');
    const frame = await call(c, 'render_frame', { source: HELLO, width: 320, height: 180 });
    assert.ok(!frame.isError, textOf(frame));
    const img = frame.content.find((p) => p.type === 'image') as { data: string };
    assert.equal(PNG.sync.read(Buffer.from(img.data, 'base64')).width, 320);
    say('cmrender', `[image/png, ${Buffer.from(img.data, 'base64').length} bytes] ${textOf(frame)}`);
    // one diagnostic per line: the reporter escapes a newline inside one
    for (const l of ['transcript:', ...lines.join('\n\n').split('\n')]) tt.diagnostic(l);
  } finally {
    await c.close();
  }
});
