// openapi/openapi.json as a client author reads it: Redocly's recommended rules pass (redocly.yaml names the rule
// turned off, .redocly.lint-ignore.yaml the findings accepted, each with its reason), every operation has a tag and
// examples, and every error answer (other than a job's own) is `{error, code}` with `code` present, in the document
// and on the wire.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lint, loadConfig } from '@redocly/openapi-core';
import { startApp, FakeRenderer, repoRoot, type TestApp } from '../helpers/app.js';
import { post, runJob } from '../helpers/job-client.js';
import { pageCrashed } from '../../src/render/page/viewer-page.js';

type Media = { schema?: { $ref?: string }; example?: unknown; examples?: unknown };
type Operation = {
  operationId: string;
  tags?: string[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
const docPath = join(repoRoot, 'openapi', 'openapi.json');
const doc = JSON.parse(readFileSync(docPath, 'utf8')) as {
  info: { version: string };
  servers?: { url: string; description?: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[] }> };
};
const operations = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].flatMap((item) => Object.values(item));

test("Redocly's recommended rules find nothing that is not accepted in .redocly.lint-ignore.yaml", async () => {
  const config = await loadConfig({ configPath: join(repoRoot, 'redocly.yaml') });
  const problems = await lint({ ref: docPath, config });
  const open = problems
    .filter((p) => !p.ignored)
    .map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
  assert.deepEqual(open, []);
});

test("info.version is the package's version; a servers entry; every operation tagged with a declared tag", () => {
  assert.equal(doc.info.version, JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
  assert.ok((doc.servers ?? []).length >= 1);
  const declared = new Set(doc.tags.map((t) => t.name));
  for (const op of operations) {
    assert.ok(op.tags?.length, `${op.operationId} has no tag`);
    for (const tag of op.tags!)
      assert.ok(declared.has(tag), `${op.operationId}: tag ${tag} is not in the top-level tags`);
  }
});

test('every request body and every JSON or text answer has an example', () => {
  const missing: string[] = [];
  for (const op of operations) {
    for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
      if (media.example === undefined && media.examples === undefined)
        missing.push(`${op.operationId} request ${type} (bodyExample)`);
    }
    for (const [status, answer] of Object.entries(op.responses)) {
      for (const [type, media] of Object.entries(answer.content ?? {})) {
        if (!/^application\/json|^text\//.test(type)) continue; // files: PNG, MP4, GIF bytes
        const schemaExamples = (media.schema as { examples?: unknown[] } | undefined)?.examples;
        if (media.example === undefined && media.examples === undefined && !schemaExamples)
          missing.push(`${op.operationId} ${status} ${type}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

test('one error shape in the document: ErrorEnvelope requires error and code, and every 4xx/5xx but JobError uses it', () => {
  assert.deepEqual(doc.components.schemas.ErrorEnvelope!.required, ['error', 'code']);
  for (const op of operations) {
    for (const [status, answer] of Object.entries(op.responses)) {
      if (!/^[45]\d\d$/.test(status)) continue;
      const ref = answer.content?.['application/json']?.schema?.$ref;
      const allowed = ['#/components/schemas/ErrorEnvelope', '#/components/schemas/JobError'];
      assert.ok(ref && allowed.includes(ref), `${op.operationId} ${status}: ${ref}`);
    }
  }
});

let t: TestApp;
const fake = new FakeRenderer();
before(async () => {
  t = await startApp({ renderer: fake });
});
after(() => t.close());

test("on the wire: 400 (ours and the framework's) and 404 (route, job, output) answers all carry `code`", async () => {
  const answers = [
    await post(t.app, '/v1/frame', '[1]'),
    await t.app.inject({ url: '/nope' }),
    await t.app.inject({ url: '/v1/jobs/0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90' }),
    await t.app.inject({ url: '/v1/outputs/0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90.png' }),
    // a framework refusal with no code of its own: the generic `bad_request`
    await t.app.inject({
      method: 'POST',
      url: '/v1/check',
      payload: '{"source":"a"}',
      headers: { 'content-type': 'application/json', 'content-length': '3' },
    }),
    await t.app.inject({ url: '/%zz' }),
  ];
  assert.deepEqual(
    answers.map((r) => [r.statusCode, r.json().code]),
    [
      [400, 'bad_json'],
      [404, 'not_found'],
      [404, 'not_found'],
      [404, 'not_found'],
      [400, 'bad_request'],
      [400, 'bad_url'],
    ],
  );
  for (const r of answers) {
    const body = r.json() as Record<string, unknown>;
    // an unknown job or output also says what is missing (`message`); nothing else is added
    assert.deepEqual(
      Object.keys(body).sort(),
      r === answers[2] || r === answers[3] ? ['code', 'error', 'message'] : ['code', 'error'],
      r.body,
    );
    assert.equal(typeof body.code, 'string');
  }
  assert.equal(answers[1]!.json().error, 'not_found', 'the contract fixes error on a 404');
});

test('on the wire: GET /test that fails is 500 {error, code} with the code a job would end with; a failed job keeps its own shape', async () => {
  fake.behaviour = async () => {
    // the page layer's own fault for a browser that went away (Playwright's words are only its message)
    throw pageCrashed(new Error('browser has been closed'));
  };
  try {
    const r = await t.app.inject({ url: '/test' });
    assert.equal(r.statusCode, 500);
    assert.deepEqual(r.json(), { error: 'render failed: the browser crashed during the render', code: 'page_crashed' });
    const job = await runJob(t.app, '/v1/frame', { source: 'x' });
    assert.equal(job.statusCode, 500);
    assert.equal(job.json().status, 'error');
  } finally {
    fake.behaviour = null;
  }
});

test("the servers' descriptions are plain text: the /docs page shows them as written, so no Markdown", () => {
  assert.ok(doc.servers && doc.servers.length > 0);
  for (const s of doc.servers) assert.doesNotMatch(s.description ?? '', /[`*_[\]]/, s.description);
});
