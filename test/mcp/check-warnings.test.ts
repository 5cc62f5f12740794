// MCP's check_source with the SDK's own client: a source that renders silently wrong (`rect(widht: 300px)`) still
// checks ok, and the answer names the warning (LIB001, its "did you mean") with its explanation. The server's
// instructions and its tools' annotations (which only read).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FakeRenderer, startApp, type TestApp } from '../helpers/app.js';
import { diagnosticDoc } from '../../src/lang/diagnostic-docs.js';

let t: TestApp;
let base: string;
before(async () => {
  t = await startApp({ renderer: new FakeRenderer() });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

const SOURCE = `runner "0.0.13";
scene main() -> Frame {
  compose [rect(width: 640px, height: 360px, fill: #102030), rect(widht: 300px, height: 100px)]
}
`;

test('check_source: ok, with the LIB001 warning and its explanation', async () => {
  const c = new Client({ name: 'cmrender-test', version: '0.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    const r = (await c.callTool({ name: 'check_source', arguments: { source: SOURCE } })) as CallToolResult;
    assert.ok(!r.isError);
    const text = r.content.map((p) => (p as { text?: string }).text ?? '').join('\n');
    assert.match(text, /^ok: the source compiles/);
    assert.match(text, /LIB001 at 3:67: 'rect' has no argument 'widht'; did you mean 'width'\?/);
    assert.ok(text.includes(diagnosticDoc('LIB001')!.explanation));
    const s = r.structuredContent as { ok: boolean; diagnostics: { code: string; severity: string }[] };
    assert.equal(s.ok, true);
    assert.deepEqual(
      s.diagnostics.map((d) => [d.code, d.severity]),
      [['LIB001', 'warning']],
    );
  } finally {
    await c.close();
  }
});

test('the server tells an agent how to work (instructions), and each tool says whether it only reads', async () => {
  const c = new Client({ name: 'cmrender-test', version: '0.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    const instructions = c.getInstructions() ?? '';
    assert.match(instructions, /check_source/);
    assert.match(instructions, /cmrender:\/\/docs\/language/);
    const tools = new Map((await c.listTools()).tools.map((x) => [x.name, x]));
    for (const name of ['check_source', 'explain_diagnostic']) {
      assert.equal(tools.get(name)?.annotations?.readOnlyHint, true, name);
      assert.ok(tools.get(name)?.annotations?.title, name);
    }
    for (const name of ['render_frame', 'render_video', 'render_gif']) {
      assert.equal(tools.get(name)?.annotations?.readOnlyHint, false, name);
      assert.equal(tools.get(name)?.annotations?.destructiveHint, false, name);
      assert.ok(tools.get(name)?.annotations?.title, name);
    }
  } finally {
    await c.close();
  }
});
