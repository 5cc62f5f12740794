// GET / (the editor) and GET /editor/{file}: the built page, its bundle, stylesheet and font, with their types.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { editorDistDir } from '../../../src/paths.js';
import { builtEditor } from '../../helpers/built.js';
import { FONT_SERVED_NAME } from '../../../viewer/src/font-file.js';

let t: TestApp;
before(async () => {
  builtEditor();
  t = await startApp({ renderer: new FakeRenderer() });
});
after(() => t.close());

test('GET / is the editor page: HTML that loads only this origin, with the test contract in it', async () => {
  const r = await t.app.inject({ url: '/' });
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(String(r.headers['content-security-policy']), /default-src 'self'/);
  for (const id of [
    'editor',
    'preview',
    'diagnostics',
    'scrubber',
    'render-png',
    'render-mp4',
    'render-gif',
    'play',
    'result',
  ]) {
    assert.match(r.body, new RegExp(`data-testid="${id}"`), id);
  }
  assert.match(r.body, /href="\/docs"/);
  // no CDN: every src and href is this origin's
  for (const m of r.body.matchAll(/(?:src|href)="([^"]+)"/g)) assert.match(m[1]!, /^(\/|data:)/, m[1]);
});

test('GET /editor/{file}: the bundle, the stylesheet and the font with their types; nothing else', async () => {
  const js = await t.app.inject({ url: '/editor/editor.js' });
  assert.equal(js.statusCode, 200);
  assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.ok(js.body.length > 100_000);
  assert.equal((await t.app.inject({ url: '/editor/editor.css' })).headers['content-type'], 'text/css; charset=utf-8');
  const font = await t.app.inject({ url: `/editor/${FONT_SERVED_NAME}` });
  assert.equal(font.headers['content-type'], 'font/woff');
  assert.equal(font.rawPayload.subarray(0, 4).toString('latin1'), 'wOFF');
  for (const url of [
    '/editor/missing.js',
    '/editor/index',
    '/editor/..%2F..%2Fpackage.json',
    '/editor/.env',
    '/editor/x.exe',
  ]) {
    const r = await t.app.inject({ url });
    assert.equal(r.statusCode, 404, url);
  }
});

test('GET /editor/{file}: gzip when the browser takes it, an etag, and 304 for an unchanged build', async () => {
  const js = await t.app.inject({ url: '/editor/editor.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.equal(js.headers['content-encoding'], 'gzip');
  assert.equal(js.headers.vary, 'accept-encoding');
  const plain = readFileSync(join(editorDistDir, 'editor.js'));
  assert.ok(js.rawPayload.length < plain.length / 2);
  assert.deepEqual(gunzipSync(js.rawPayload), plain);
  const again = await t.app.inject({ url: '/editor/editor.js', headers: { 'if-none-match': String(js.headers.etag) } });
  assert.equal(again.statusCode, 304);
  assert.equal(again.rawPayload.length, 0);
  // the font is already compressed: sent as it is
  const font = await t.app.inject({ url: `/editor/${FONT_SERVED_NAME}`, headers: { 'accept-encoding': 'gzip' } });
  assert.equal(font.headers['content-encoding'], undefined);
});
