// render_batch (src/mcp/tools.ts) with the MCP SDK's own client on `/mcp` (real Chromium): a three-row frame batch
// reports progress (its first notification names the batch), answers the batch's view with each row's output URL
// and the archive's URL, which downloads a ZIP of the three PNGs and the manifest; a bad row is refused naming it.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import yauzl from 'yauzl';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { realRenderer, startApp, type TestApp } from '../helpers/app.js';

const CARD =
  'runner "0.0.3";\nuse std.shapes.*;\nscene card(fill: Color = #808080) -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: fill)]\n}\n';
let t: TestApp;
let base: string;
before(async () => {
  t = await startApp({ renderer: realRenderer() });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

async function connect(): Promise<Client> {
  const client = new Client({ name: 'cmrender-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return client;
}
const textOf = (r: CallToolResult) =>
  r.content
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('\n');

function zipNames(buf: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const names: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        names.push(e.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(names));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

test('render_batch: progress, the view with each row URL, and an archive URL that downloads the ZIP', async () => {
  const c = await connect();
  try {
    const messages: string[] = [];
    const rows = [
      { name: 'red', args: { fill: '#ff0000' } },
      { name: 'green', args: { fill: '#00ff00' } },
      { name: 'blue', args: { fill: '#0000ff' } },
    ];
    const r = (await c.callTool(
      { name: 'render_batch', arguments: { kind: 'frame', source: CARD, rows, width: 64, height: 36 } },
      undefined,
      { onprogress: (p) => messages.push(String(p.message)) },
    )) as CallToolResult;
    assert.ok(!r.isError, textOf(r));
    const s = r.structuredContent as {
      batch: { batch_id: string; status: string; rows: { name: string; url: string }[] };
      url: string;
      archive: string;
    };
    assert.equal(s.batch.status, 'ready');
    assert.equal(s.url, `${base}/v1/batches/${s.batch.batch_id}`);
    assert.ok(messages.length >= 1);
    assert.ok(messages[0]!.includes(s.batch.batch_id), messages[0]);
    const colours = { red: [255, 0, 0], green: [0, 255, 0], blue: [0, 0, 255] } as Record<string, number[]>;
    for (const row of s.batch.rows) {
      const png = PNG.sync.read(Buffer.from(await (await fetch(row.url)).arrayBuffer()));
      assert.deepEqual([...png.data.subarray(0, 3)], colours[row.name]);
    }
    const zip = await fetch(s.archive);
    assert.equal(zip.status, 200);
    assert.deepEqual((await zipNames(Buffer.from(await zip.arrayBuffer()))).sort(), [
      'blue.png',
      'green.png',
      'manifest.json',
      'red.png',
    ]);
    const bad = (await c.callTool({
      name: 'render_batch',
      arguments: { kind: 'frame', source: CARD, rows: [{ args: { fill: '#ff0000' } }, { args: { fil: '#00ff00' } }] },
    })) as CallToolResult;
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /invalid_args/);
    assert.match(textOf(bad), /rows\[1\]/);
  } finally {
    await c.close();
  }
});
