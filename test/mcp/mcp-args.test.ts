// Scene arguments through MCP, with the SDK's own client on the service's /mcp (real Chromium): describe_scene's
// signature and schema, render_frame drawing `args`, bad args refused with one line per problem, check_source with
// args, and an unknown tool argument an error naming the accepted ones.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { realRenderer, startApp, type TestApp } from '../helpers/app.js';

const CARD =
  'runner "0.0.3";\nuse std.shapes.*;\nscene card(name: String, accent: Color = #ff3399) -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: accent)]\n}\n';

let t: TestApp;
let c: Client;
before(async () => {
  t = await startApp({ renderer: realRenderer(), ownsRenderer: true });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  c = new Client({ name: 'cmrender-test', version: '0.0.0' });
  const port = (t.app.server.address() as AddressInfo).port;
  await c.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
});
after(async () => {
  await c?.close();
  await t?.close();
});

const call = (name: string, args: Record<string, unknown>) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) =>
  r.content
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('\n');

/** The tool's error text, whether the SDK answers it as a tool error or throws it as a protocol error. */
async function errorOf(name: string, args: Record<string, unknown>): Promise<string> {
  try {
    const r = await call(name, args);
    assert.equal(r.isError, true, textOf(r));
    return textOf(r);
  } catch (e) {
    return (e as Error).message;
  }
}

test('describe_scene: the signature and the JSON Schema of the args', async () => {
  const r = await call('describe_scene', { source: CARD, args: { name: 'Ana' } });
  assert.ok(!r.isError, textOf(r));
  const scene = (r.structuredContent as { scene: Record<string, unknown> }).scene;
  assert.equal(scene.name, 'card');
  assert.deepEqual(scene.params, [
    { name: 'name', type: 'String', default: null, required: true },
    { name: 'accent', type: 'Color', default: '#ff3399', required: false },
  ]);
  assert.deepEqual((scene.schema as { required: string[] }).required, ['name']);
  assert.match(textOf(r), /^scene card\(name: String, accent: Color = "#ff3399"\)/);
  // without args no scene renders (name is required): the tool says so
  assert.match(await errorOf('describe_scene', { source: CARD }), /no scene renders/);
});

test('render_frame with args draws them; bad args are refused with one line per problem', async () => {
  const r = await call('render_frame', { source: CARD, args: { name: 'Ana', accent: '#00ff00' }, width: 64 });
  assert.ok(!r.isError, textOf(r));
  const img = r.content.find((p) => p.type === 'image') as { data: string };
  const png = PNG.sync.read(Buffer.from(img.data, 'base64'));
  const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
  assert.deepEqual([...png.data.subarray(i, i + 3)], [0, 255, 0]);
  const bad = await errorOf('render_frame', { source: CARD, args: { name: 'Ana', acent: 1 } });
  assert.match(bad, /invalid_args/);
  assert.match(bad, /- args\.acent is not a parameter of scene 'card'; did you mean 'accent'\?/);
  const check = await call('check_source', { source: CARD, args: { name: 'Ana' } });
  assert.ok(!check.isError, textOf(check));
  assert.equal((check.structuredContent as { ok: boolean }).ok, true);
});

test('an unknown tool argument is an error naming it and the accepted ones', async () => {
  const e = await errorOf('render_frame', { source: CARD, widht: 64 });
  assert.match(
    e,
    /unknown argument 'widht' \(did you mean 'width'\?\); the accepted arguments are source, args, at, width, height/,
  );
  const g = await errorOf('render_gif', { source: CARD, colours: 8 });
  assert.match(g, /unknown argument 'colours'; the accepted arguments are source, args, keep, duration, fps, width, height/);
  assert.match(await errorOf('explain_diagnostic', { code: 'NAM003', verbose: true }), /unknown argument 'verbose'/);
});
