// The times said to users follow RETENTION_MS: /llms.txt, the OpenAPI descriptions of uploads and of the
// Idempotency-Key, and the asset budget's 503 say the configured time (src/contract/describe-duration.ts), not "24
// hours" written beside the setting.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, FakeRenderer, multipart, type TestApp } from '../helpers/app.js';

const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});

async function texts(config: Parameters<typeof startApp>[0]['config']) {
  const t = await startApp({ renderer: new FakeRenderer(), config });
  apps.push(t);
  const llms = (await t.app.inject({ url: '/llms.txt' })).body;
  const doc = (await t.app.inject({ url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { description?: string }>>;
  };
  return {
    t,
    llms,
    assets: doc.paths['/v1/assets']!.post!.description!,
    render: doc.paths['/v1/render']!.post!.description!,
  };
}

test('by default: 24 hours', async () => {
  const { llms, assets, render } = await texts({});
  assert.ok(llms.includes('- Outputs, jobs and assets are kept 24 hours.'), llms);
  assert.ok(assets.includes('Assets expire after 24 hours.'), assets);
  assert.ok(render.includes('the same key and body within 24 hours answer the same job'), render);
});

test('RETENTION_MS of one hour: every sentence says 1 hour, the asset budget refusal too', async () => {
  const { t, llms, assets, render } = await texts({ retentionMs: 3_600_000, assetsMaxBytes: 16 });
  assert.ok(llms.includes('- Outputs, jobs and assets are kept 1 hour.'), llms);
  assert.ok(assets.includes('Assets expire after 1 hour.'), assets);
  assert.ok(render.includes('the same key and body within 1 hour answer the same job'), render);
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>';
  const m = multipart([{ name: 'a', filename: 'a.svg', type: 'image/svg+xml', data: svg }]);
  const r = await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
  assert.equal(r.statusCode, 503);
  assert.equal(r.json().code, 'storage_full');
  assert.match(r.json().error, /held by uploads younger than 1 hour, \d+ more asked/);
});
