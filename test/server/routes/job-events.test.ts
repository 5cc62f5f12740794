// GET /v1/jobs/{id}/events: Server-Sent Events over a real socket: progress events as the job moves up the line and
// renders, then the final job view, then the stream closes. An ended job: the final event at once. Unknown: 404.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startApp, FakeRenderer, gate, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});

interface Sse {
  event: string;
  data: any;
}

/** Reads an event stream, one parsed event at a time. */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<Sse> {
  const decoder = new TextDecoder();
  let buf = '';
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const lines = block.split('\n').filter((l) => !l.startsWith(':'));
      if (!lines.length) continue;
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      yield { event, data: JSON.parse(data) };
    }
  }
}

/** The next event, or a failure after a bounded wait. */
async function next(it: AsyncGenerator<Sse>, ms = 10_000): Promise<Sse | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([
    it.next(),
    new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error('no event in time')), ms))),
  ]);
  clearTimeout(timer);
  return r.done ? undefined : r.value;
}

test('progress events as the job waits and renders, then the final view, then the stream closes', async () => {
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake });
  apps.push(t);
  const g1 = gate();
  const g2 = gate();
  let report!: (p: number) => void;
  const rendering = gate();
  fake.behaviour = async (job, hooks) => {
    if (job.kind === 'video') return g1.promise;
    report = (p) => hooks.onProgress?.(p);
    rendering.open();
    await g2.promise;
  };
  const ahead = (await post(t.app, '/v1/render', { source: SRC })).json().job_id;
  const id = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (t.app.server.address() as AddressInfo).port;
  const res = await fetch(`http://127.0.0.1:${port}/v1/jobs/${id}/events`, {
    headers: { origin: 'https://example.com' },
  });
  assert.equal(res.status, 200);
  assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const it = events(res.body!);

  const waiting = await next(it);
  assert.equal(waiting?.event, 'progress');
  assert.deepEqual(
    [waiting!.data.job_id, waiting!.data.status, waiting!.data.queue_position, waiting!.data.progress],
    [id, 'pending', 1, 0],
  );
  g1.open();
  await rendering.promise;
  const started = await next(it);
  assert.deepEqual([started?.event, started?.data.queue_position, started?.data.progress], ['progress', 0, 0]);
  report(0.5);
  const half = await next(it);
  assert.deepEqual([half?.event, half?.data.queue_position, half?.data.progress], ['progress', 0, 0.5]);
  g2.open();
  const end = await next(it);
  assert.equal(end?.event, 'end');
  assert.deepEqual(end!.data, (await waitJob(t.app, id)).json(), 'the final event is the job view');
  assert.equal(end!.data.status, 'ready');
  assert.equal(await next(it), undefined, 'the stream closed');
  assert.equal((await waitJob(t.app, ahead)).json().status, 'ready');
});

test('an ended job: the final event at once; an error job carries its error view; unknown ids 404', async () => {
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake });
  apps.push(t);
  const id = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  const view = (await waitJob(t.app, id)).json();
  const r = await t.app.inject({ url: `/v1/jobs/${id}/events` });
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['access-control-allow-origin'], '*');
  assert.equal(r.body, `event: end\ndata: ${JSON.stringify(view)}\n\n`);

  const g = gate();
  fake.behaviour = (_job, hooks) =>
    new Promise<void>((_, reject) =>
      hooks.signal.addEventListener('abort', () => reject(new Error('aborted'))),
    ).finally(g.open);
  const doomed = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  const stream = t.app.inject({ url: `/v1/jobs/${doomed}/events` });
  await t.app.inject({ method: 'DELETE', url: `/v1/jobs/${doomed}` });
  const body = (await stream).body;
  const last = body.trim().split('\n\n').at(-1)!;
  assert.match(last, /^event: end\ndata: /);
  assert.deepEqual(
    [
      JSON.parse(last.slice(last.indexOf('data: ') + 6)).status,
      JSON.parse(last.slice(last.indexOf('data: ') + 6)).code,
    ],
    ['error', 'cancelled'],
  );

  for (const u of ['00000000-0000-4000-8000-000000000000', 'nope']) {
    const n = await t.app.inject({ url: `/v1/jobs/${u}/events` });
    assert.equal(n.statusCode, 404);
    const { message, ...fixed } = n.json() as { message?: string };
    assert.deepEqual(fixed, { error: 'not_found', code: 'not_found' });
    // the same words as GET /v1/jobs/{id}: what is missing, how long jobs are kept (a malformed id: no message)
    if (u.startsWith('0000'))
      assert.match(message ?? '', /^job 0{8}-.* is not here: jobs and their outputs are kept 24 hours/);
  }
});
