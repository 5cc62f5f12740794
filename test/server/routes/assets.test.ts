// POST /v1/assets and the `assets` field of render requests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedLine, startApp, FakeRenderer, multipart, type TestApp } from '../../helpers/app.js';
import { post } from '../../helpers/job-client.js';
import { encodePng } from '../../../src/render/png.js';
import { sniffImage } from '../../../src/contract/mime.js';

let t: TestApp;
const fake = new FakeRenderer();
before(async () => {
  t = await startApp({ renderer: fake });
});
after(() => t.close());

const PNG = encodePng(new Uint8Array(4 * 4 * 4).fill(255), 4, 4);
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9,
]);
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x3b])]);
const WEBP = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([26, 0, 0, 0]),
  Buffer.from('WEBPVP8L'),
  Buffer.alloc(14),
]);
const SVG = Buffer.from(
  '<?xml version="1.0"?>\n<!-- drawn -->\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>',
);
const KEY = /^asset_[0-9a-f]{32}$/;

async function upload(parts: Parameters<typeof multipart>[0]) {
  const m = multipart(parts);
  return t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
}

test('images judged by their bytes: magic numbers of PNG, JPEG, WebP, GIF and SVG', () => {
  assert.equal(sniffImage(PNG), 'image/png');
  assert.equal(sniffImage(JPEG), 'image/jpeg');
  assert.equal(sniffImage(WEBP), 'image/webp');
  assert.equal(sniffImage(GIF), 'image/gif');
  assert.equal(sniffImage(SVG), 'image/svg+xml');
  assert.equal(sniffImage(Buffer.from('\ufeff<svg viewBox="0 0 1 1"></svg>')), 'image/svg+xml');
  assert.equal(sniffImage(Buffer.from('<html><svg></svg></html>')), undefined);
  assert.equal(sniffImage(Buffer.from('hello')), undefined);
  assert.equal(sniffImage(Buffer.from('RIFF\0\0\0\0WAVEfmt ')), undefined);
  assert.equal(sniffImage(Buffer.alloc(0)), undefined);
});

test('200 {"assets": {filename: key}} for every file part; fields are ignored; files land in DATA_DIR/assets', async () => {
  const r = await upload([
    { name: 'a', filename: 'earth.png', type: 'image/png', data: PNG },
    { name: 'b', filename: 'photo.jpg', data: JPEG },
    { name: 'c', filename: 'anim.gif', data: GIF },
    { name: 'd', filename: 'pic.webp', data: WEBP },
    { name: 'e', filename: 'shape.svg', data: SVG },
    { name: 'note', data: 'just a field' },
  ]);
  assert.equal(r.statusCode, 200, r.body);
  const { assets } = r.json();
  assert.deepEqual(Object.keys(r.json()), ['assets']);
  assert.deepEqual(Object.keys(assets).sort(), ['anim.gif', 'earth.png', 'photo.jpg', 'pic.webp', 'shape.svg']);
  for (const k of Object.values(assets) as string[]) assert.match(k, KEY);
  assert.equal(new Set(Object.values(assets)).size, 5);
  assert.ok(readFileSync(join(t.dataDir, 'assets', assets['earth.png'])).equals(PNG));
});

test('the content-type a client claims does not matter: a text file named .png is refused', async () => {
  const r = await upload([{ name: 'f', filename: 'fake.png', type: 'image/png', data: 'not an image' }]);
  assert.equal(r.statusCode, 400);
  assert.equal(r.json().code, 'not_an_image');
  assert.match(r.json().error, /fake\.png/);
  // nothing of a refused upload is stored, even its valid files
  const before = (await import('node:fs')).readdirSync(join(t.dataDir, 'assets')).length;
  const mixed = await upload([
    { name: 'ok', filename: 'ok.png', data: PNG },
    { name: 'bad', filename: 'bad.txt', data: 'text' },
  ]);
  assert.equal(mixed.statusCode, 400);
  assert.equal((await import('node:fs')).readdirSync(join(t.dataDir, 'assets')).length, before);
});

test('no file: 400 no_file (fields only, empty multipart, or not multipart at all)', async () => {
  for (const r of [
    await upload([{ name: 'x', data: 'y' }]),
    await upload([]),
    await post(t.app, '/v1/assets', { source: 'x' }),
    await t.app.inject({ method: 'POST', url: '/v1/assets' }),
  ]) {
    assert.equal(r.statusCode, 400, r.body);
    assert.equal(r.json().code, 'no_file');
  }
});

test('10 files are accepted, 11 are 400 too_many_files', async () => {
  const ten = Array.from({ length: 10 }, (_, i) => ({ name: `f${i}`, filename: `f${i}.png`, data: PNG }));
  const ok = await upload(ten);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(Object.keys(ok.json().assets).length, 10);
  const r = await upload([...ten, { name: 'f10', filename: 'f10.png', data: PNG }]);
  assert.equal(r.statusCode, 400);
  assert.equal(r.json().code, 'too_many_files');
});

test('a file of 25 MiB is accepted, one byte more is 400 file_too_large', async () => {
  const max = 25 * 1024 * 1024;
  const big = Buffer.alloc(max);
  PNG.copy(big);
  const ok = await upload([{ name: 'f', filename: 'big.png', data: big }]);
  assert.equal(ok.statusCode, 200, ok.body.slice(0, 200));
  const over = Buffer.alloc(max + 1);
  PNG.copy(over);
  const r = await upload([{ name: 'f', filename: 'big.png', data: over }]);
  assert.equal(r.statusCode, 400);
  assert.equal(r.json().code, 'file_too_large');
});

test('a render request maps in-source paths to uploaded keys; the renderer gets the stored files', async () => {
  const key = (await upload([{ name: 'f', filename: 'earth.png', data: PNG }])).json().assets['earth.png'];
  const r = await post(t.app, '/v1/render', { source: 'x', assets: { '/img/earth.jpg': key } });
  assert.equal(r.statusCode, 202);
  await embeddedLine(t.app).onIdle();
  const job = fake.calls.at(-1)!;
  assert.deepEqual(Object.keys(job.assets), ['/img/earth.jpg']);
  assert.equal(job.assets['/img/earth.jpg'], join(t.dataDir, 'assets', key));
  assert.ok(existsSync(job.assets['/img/earth.jpg']));
  const f = await post(t.app, '/v1/frame', {
    source: 'x',
    assets: { '/img/earth.jpg': key, '/img/other.jpg': 'asset_' + 'f'.repeat(32) },
  });
  assert.equal(f.statusCode, 400);
  assert.equal(f.json().code, 'unknown_asset');
});

test('assets expire with retention', async () => {
  const key = (await upload([{ name: 'f', filename: 'e.png', data: PNG }])).json().assets['e.png'];
  const file = join(t.dataDir, 'assets', key);
  await t.app.assetStore.sweep(Date.now() + 24 * 3600 * 1000 + 1000, 24 * 3600 * 1000);
  assert.equal(existsSync(file), false);
  const r = await post(t.app, '/v1/frame', { source: 'x', assets: { '/a.png': key } });
  assert.equal(r.json().code, 'unknown_asset');
});

test('GET /v1/assets/{key}: the uploaded bytes with their sniffed type; SVG sandboxed; unknown or malformed keys 404', async () => {
  const up = await upload([
    { name: 'a', filename: 'a.png', data: PNG },
    { name: 'b', filename: 'b.svg', data: SVG },
  ]);
  const keys = up.json().assets as Record<string, string>;
  const png = await t.app.inject({ url: `/v1/assets/${keys['a.png']}` });
  assert.equal(png.statusCode, 200);
  assert.equal(png.headers['content-type'], 'image/png');
  assert.equal(png.headers['x-content-type-options'], 'nosniff');
  assert.deepEqual(png.rawPayload, PNG);
  const svg = await t.app.inject({ url: `/v1/assets/${keys['b.svg']}` });
  assert.equal(svg.headers['content-type'], 'image/svg+xml');
  assert.match(String(svg.headers['content-security-policy']), /sandbox/);
  for (const key of [
    'asset_' + '0'.repeat(32),
    'asset_' + '0'.repeat(31),
    '..%2Fjobs.journal',
    keys['a.png']!.toUpperCase(),
  ]) {
    const r = await t.app.inject({ url: `/v1/assets/${key}` });
    assert.equal(r.statusCode, 404, key);
    assert.equal(r.body, '{"error":"not_found","code":"not_found"}');
  }
});
