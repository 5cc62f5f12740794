// GET /llms.txt: written from the OpenAPI document the routes generate: every operation is listed, each render kind
// has its example (the document's own request example, valid JSON that the route accepts), and the steps say POST,
// poll, download.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, FakeRenderer, type TestApp } from '../helpers/app.js';
import { post, waitJob } from '../helpers/job-client.js';

let t: TestApp;
after(async () => {
  await t?.close();
});

test('llms.txt lists every route of the document and one accepted example per render kind', async () => {
  t = await startApp({ renderer: new FakeRenderer() });
  const r = await t.app.inject({ url: '/llms.txt' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/plain/);
  const text = r.body;
  assert.match(text, /^# cmrender\n\n> /);
  for (const step of ['POST', 'Retry-After', 'GET /v1/jobs/{job_id}', '/v1/outputs/'])
    assert.ok(text.includes(step), step);

  const doc = (await t.app.inject({ url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { summary: string }>>;
  };
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item))
      assert.ok(text.includes(`- ${method.toUpperCase()} ${path}: ${op.summary}`), `${method} ${path}`);

  const examples = [...text.matchAll(/### (\w+): POST (\S+) [^\n]*\n[\s\S]*?```json\n([\s\S]*?)\n```/g)];
  assert.deepEqual(
    examples.map((m) => m[1]),
    ['frame', 'video', 'gif', 'mesh', 'vectorize'],
  );
  // the frame, video, gif and mesh examples are accepted as they stand (vectorize's names an upload)
  for (const [, kind, path, body] of examples.filter((m) => m[1] !== 'vectorize')) {
    const res = await post(t.app, path!, JSON.parse(body!));
    assert.equal(res.statusCode, 202, `${kind}: ${res.body}`);
    assert.equal(res.json().kind, kind);
    await waitJob(t.app, res.json().job_id);
  }
});
