// The language reference as the service serves it: GET /docs/language (HTML made from the same Markdown as
// docs/language.md, anchors for every entry and code, its own CSP), GET /llms-full.txt (llms.txt, then the
// reference) and /llms.txt linking both.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { languageReference } from '../../../src/lang/reference.js';
import { DIAGNOSTIC_DOCS } from '../../../src/lang/diagnostic-docs.js';
import { markdownToHtml } from '../../../src/server/markdown-html.js';

let t: TestApp;
before(async () => {
  t = await startApp({ renderer: new FakeRenderer() });
});
after(async () => {
  await t?.close();
});

test('GET /docs/language is a readable page of the reference', async () => {
  const r = await t.app.inject({ url: '/docs/language' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/html/);
  assert.match(String(r.headers['content-security-policy']), /default-src 'none'/);
  const html = r.body;
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /<h1 id="the-cm-language">The .cm language<\/h1>/);
  assert.match(html, /<h3 id="rect"><code>rect<\/code><\/h3>/);
  assert.ok(html.includes('<code>rect(width?: Length, height?: Length, fill?: Color) -&gt; Layer</code>'));
  for (const d of DIAGNOSTIC_DOCS) assert.ok(html.includes(`<h3 id="${d.code.toLowerCase()}">${d.code}</h3>`), d.code);
  // the index of codes links to their sections
  assert.ok(html.includes('<a href="#nam003">NAM003</a>'));
  assert.match(html, /<table>\s*<thead><tr><th>Parameter<\/th>/);
  assert.doesNotMatch(html, /<script/);
});

test('the page escapes what it shows: a source snippet with < and " stays text', () => {
  const html = markdownToHtml('# T\n\n```cm\nsvg("""<svg onload="x()">""")\n```\n\nA `<b>` and <i>raw</i>.\n', 'T');
  assert.ok(html.includes('svg(&quot;&quot;&quot;&lt;svg onload=&quot;x()&quot;&gt;&quot;&quot;&quot;)'));
  assert.ok(html.includes('<code>&lt;b&gt;</code> and &lt;i&gt;raw&lt;/i&gt;.'));
});

test('GET /llms-full.txt is llms.txt followed by the reference; /llms.txt links both', async () => {
  const llms = (await t.app.inject({ url: '/llms.txt' })).body;
  assert.ok(llms.includes('[Language reference](/docs/language)'));
  assert.ok(llms.includes('[Full text](/llms-full.txt)'));
  const r = await t.app.inject({ url: '/llms-full.txt' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/plain/);
  assert.equal(r.body, `${llms}\n${languageReference()}`);
});
