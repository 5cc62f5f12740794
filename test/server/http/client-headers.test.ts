// Location on every 202, Retry-After on a pending job's GET (from its queue position and progress).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, FakeRenderer, gate, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import type { WorkEstimate } from '../../../src/render/renderer-port.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});

test('202 answers carry Location: /v1/jobs/{id}', async () => {
  const t = await startApp({ renderer: new FakeRenderer() });
  apps.push(t);
  for (const url of ['/v1/render', '/v1/frame']) {
    const r = await post(t.app, url, { source: SRC });
    assert.equal(r.statusCode, 202);
    assert.equal(r.headers.location, `/v1/jobs/${r.json().job_id}`);
    assert.equal((await t.app.inject({ url: String(r.headers.location) })).statusCode, 200);
  }
});

test('a pending job answers Retry-After: 1..2 s while rendering, 2 s per job ahead while waiting; none once ended', async () => {
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake });
  apps.push(t);
  const g = gate();
  let report!: (p: number) => void;
  const started = gate();
  fake.behaviour = async (_job, hooks) => {
    report = (p) => hooks.onProgress?.(p);
    started.open();
    await g.promise;
  };
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await post(t.app, '/v1/frame', { source: SRC })).json().job_id);
  await started.promise;
  const retryAfter = async (id: string) => {
    const r = await t.app.inject({ url: `/v1/jobs/${id}` });
    return r.headers['retry-after'];
  };
  assert.equal(await retryAfter(ids[0]), '2', 'rendering, just started');
  report(0.75);
  assert.equal(await retryAfter(ids[0]), '1', 'rendering, past half way');
  assert.deepEqual([await retryAfter(ids[1]), await retryAfter(ids[2]), await retryAfter(ids[3])], ['2', '4', '6']);
  fake.behaviour = null;
  g.open();
  for (const id of ids) {
    const r = await waitJob(t.app, id);
    assert.equal(r.json().status, 'ready');
    assert.equal(r.headers['retry-after'], undefined);
  }
});

test('a rendering job whose estimate leaves under a second answers Retry-After: 1, not 2; a longer one 2', async () => {
  // admission's estimate of each job: a frame of 0.2 s; the same scene with a comment, 30 s
  const SLOW = `${SRC}// slow\n`;
  const estimate = async (job: { source: string }): Promise<WorkEstimate> => ({
    program: 'a program',
    seconds: job.source === SLOW ? 30 : 0.2,
    bytes: 1000,
    detail: 0,
    frames: 1,
    drawnFrames: 1,
    width: 32,
    height: 16,
    costClass: 'flat',
    evaluateSeconds: 0,
    stepsPerFrame: 1,
  });
  const fake = Object.assign(new FakeRenderer(), { estimate });
  const t = await startApp({ renderer: fake });
  apps.push(t);
  const release = gate();
  let rendering = '';
  fake.behaviour = async (job) => {
    rendering = job.source;
    await release.promise;
  };
  const hintWhileRendering = async (source: string) => {
    const id = (await post(t.app, '/v1/frame', { source })).json().job_id;
    for (let i = 0; i < 500 && rendering !== source; i++) await new Promise((res) => setTimeout(res, 10));
    const r = await t.app.inject({ url: `/v1/jobs/${id}` });
    assert.equal(r.json().status, 'pending');
    assert.equal(r.json().queue_position, 0);
    return { id, hint: r.headers['retry-after'] };
  };
  const quick = await hintWhileRendering(SRC);
  assert.equal(quick.hint, '1');
  release.open();
  assert.equal((await waitJob(t.app, quick.id)).json().status, 'ready');
  const held = gate();
  fake.behaviour = async (job) => {
    rendering = job.source;
    await held.promise;
  };
  const slow = await hintWhileRendering(SLOW);
  assert.equal(slow.hint, '2');
  held.open();
  assert.equal((await waitJob(t.app, slow.id)).json().status, 'ready');
});
