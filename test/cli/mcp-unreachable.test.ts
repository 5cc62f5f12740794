// `cmrender mcp` (stdio, the SDK's own client) with no service at its address: a tool answers an error that names
// the address it tried and how to start a service, not fetch's bare "fetch failed".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { repoRoot } from '../helpers/shared.js';

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('with no service at --url, check_source answers an error naming the address and how to start one', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repoRoot, 'bin', 'cmrender.js'), 'mcp', '--url', url],
    stderr: 'pipe',
  });
  const c = new Client({ name: 'cmrender-test', version: '0.0.0' });
  await c.connect(transport);
  try {
    const r = (await c.callTool({
      name: 'check_source',
      arguments: { source: 'scene s() -> Frame { compose [] }' },
    })) as CallToolResult;
    assert.equal(r.isError, true);
    const text = r.content.map((p) => (p as { text?: string }).text ?? '').join('\n');
    assert.ok(text.includes(`no cmrender service answers at ${url} (ECONNREFUSED)`), text);
    assert.match(text, /npm start/);
    assert.match(text, /--url URL, or CMRENDER_URL/);
  } finally {
    await c.close();
  }
});
