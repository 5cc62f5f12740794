// What a client sees of a job's life is the same on both queue backends (test/helpers/backends.ts: the embedded
// service, and Redis mode's two API processes and a render worker): a frame's life and its PNG, an Idempotency-Key
// sent to two API processes, a webhook verified with the Standard Webhooks library, the events stream, admission by
// estimated work, the fair queue (a frame posted behind a long video is served first), MAX_QUEUED_JOBS at its edge
// across the API processes, a long video cancelled while it renders, and the API processes restarting under a
// waiting job. Every case runs on both backends.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { forEachBackend } from '../../helpers/backends.js';
import { getJson, jobView, pollJob, postJson, PNG_SIGNATURE } from '../../helpers/job-client.js';
import { ownExample } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { LONG_SLIDE } from '../../helpers/video.js';
import { stepHeavy } from '../../helpers/step-heavy.js';

/** the cap on jobs waiting or rendering, the same in both modes (in Redis mode counted across the API processes) */
const CAP = 4;
const FRAME = { source: ownExample('hello.cm'), params: { width: 320 } };
/** about 3.7 s of estimated work, 300 frames (five chunks on Redis) */
const LONG_VIDEO = { source: LONG_SLIDE, params: { fps: 30, width: 640, height: 360 } };

/**
 * 1800 frames (30 chunks on Redis) of a scene whose every frame costs evaluation and is drawn (LONG_SLIDE holds still
 * after 4 s, and still frames cost next to nothing): about 30 s of rendering here, so a cancel finds it rendering
 */
const CANCEL_VIDEO = { source: stepHeavy(13), params: { fps: 30, duration: 60, width: 640, height: 360 } };

/** Every file or directory under dir whose name holds the job id (outputs, partial files, segments, scratch). */
async function filesOf(dir: string, id: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((e) => e.includes(id));
}

const receivers: Receiver[] = [];
after(async () => {
  for (const r of receivers) await r.close();
});

forEachBackend('jobs', { MAX_QUEUED_JOBS: String(CAP) }, (b) => {
  test(`${b.name}: a frame is accepted (202, Location), polled to ready on the other API, and its PNG downloads`, async () => {
    const [a, other] = b.apis;
    const r = await fetch(`${a}/v1/frame`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(FRAME),
    });
    assert.equal(r.status, 202);
    const { job_id: id } = (await r.json()) as { job_id: string };
    assert.equal(r.headers.get('location'), `/v1/jobs/${id}`);
    const done = await pollJob(other, id);
    assert.equal(done.status, 'ready', JSON.stringify(done));
    assert.deepEqual([done.mime, done.width, done.height], ['image/png', 320, 180]);
    const png = Buffer.from(await (await fetch(`${other}${done.url}`)).arrayBuffer());
    assert.deepEqual([...png.subarray(0, 8)], PNG_SIGNATURE);
    assert.equal(png.readUInt32BE(16), 320);
  });

  test(`${b.name}: one Idempotency-Key sent to two API processes at once makes one job; another body is 422`, async () => {
    const key = `parity-${randomBytes(8).toString('hex')}`;
    const send = (base: string, body: unknown) =>
      fetch(`${base}/v1/frame`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
    const answers = await Promise.all([send(b.apis[0], FRAME), send(b.apis[1], FRAME), send(b.apis[0], FRAME)]);
    assert.deepEqual(
      answers.map((r) => r.status),
      [202, 202, 202],
    );
    const ids = new Set(await Promise.all(answers.map(async (r) => ((await r.json()) as any).job_id)));
    assert.equal(ids.size, 1, `one job for one key, got ${[...ids]}`);
    const other = await send(b.apis[1], { ...FRAME, params: { width: 330 } });
    assert.equal(other.status, 422);
    const refused = (await other.json()) as any;
    assert.equal(refused.code, 'idempotency_mismatch');
    assert.match(
      refused.error,
      /^this Idempotency-Key was used with a different request in the last \d+ (hours?|minutes?|seconds?)$/,
    );
    await pollJob(b.apis[0], [...ids][0]);
  });

  test(`${b.name}: a webhook is delivered once, from whichever process ended the job, and verifies (standardwebhooks)`, async () => {
    const rx = await startReceiver();
    receivers.push(rx);
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const posted = await postJson(b.apis[0], '/v1/frame', { ...FRAME, webhook: { url: rx.url, secret } });
    assert.equal(posted.status, 202, JSON.stringify(posted.json));
    const [hit] = await rx.waitFor(1);
    const headers = Object.fromEntries(Object.entries(hit!.headers).map(([k, v]) => [k, String(v)]));
    const payload = new Webhook(secret).verify(hit!.body, headers) as { job_id: string; status: string };
    assert.deepEqual(payload, await jobView(b.apis[1], posted.json.job_id));
    assert.equal(payload.status, 'ready');
    // a cancelled waiting job's webhook comes from the API that cancelled it
    const blocker = await postJson(b.apis[0], '/v1/render', LONG_VIDEO);
    const waiting = await postJson(b.apis[0], '/v1/render', { ...LONG_VIDEO, webhook: { url: rx.url, secret } });
    assert.equal((await fetch(`${b.apis[1]}/v1/jobs/${waiting.json.job_id}`, { method: 'DELETE' })).status, 200);
    const [, second] = await rx.waitFor(2);
    const ended = new Webhook(secret).verify(
      second!.body,
      Object.fromEntries(Object.entries(second!.headers).map(([k, v]) => [k, String(v)])),
    ) as { job_id: string; code: string };
    assert.deepEqual([ended.job_id, ended.code], [waiting.json.job_id, 'cancelled']);
    await fetch(`${b.apis[0]}/v1/jobs/${blocker.json.job_id}`, { method: 'DELETE' });
    // each delivery once: the receiver answered 204 to both, and a later job's delivery (which needs a render, longer
    // than any repeat of the first two would take to come) arrives third, with nothing between
    const later = await postJson(b.apis[1], '/v1/frame', { ...FRAME, webhook: { url: rx.url, secret } });
    const hits = await rx.waitFor(3);
    const ids = hits.map((h) => (JSON.parse(String(h.body)) as { job_id: string }).job_id);
    assert.deepEqual(ids, [posted.json.job_id, waiting.json.job_id, later.json.job_id]);
  });

  test(`${b.name}: the events stream of a job followed on the other API ends with its final view`, async () => {
    const posted = await postJson(b.apis[0], '/v1/frame', FRAME);
    const res = await fetch(`${b.apis[1]}/v1/jobs/${posted.json.job_id}/events`, {
      signal: AbortSignal.timeout(90_000),
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const text = await res.text();
    const end = /event: end\ndata: (.*)\n/.exec(text);
    assert.ok(end, text);
    assert.equal(JSON.parse(end[1]!).status, 'ready');
  });

  test(`${b.name}: a job that cannot finish inside the job limit is refused with 400 too_much_work`, async () => {
    const r = await postJson(b.apis[0], '/v1/render', {
      source: LONG_SLIDE,
      params: { fps: 60, duration: 300, width: 3840, height: 2160 },
    });
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.equal(r.json.code, 'too_much_work');
  });

  test(`${b.name}: behind a long video, a frame is served before a second long video (then cancelled)`, async () => {
    const [a, other] = b.apis;
    const first = await postJson(a, '/v1/render', LONG_VIDEO);
    await until('the first video renders', async () => (await jobView(a, first.json.job_id)).queue_position === 0);
    // a second long video, then a frame: shortest estimated work first (aged by waiting), in both modes
    const second = await postJson(a, '/v1/render', {
      ...LONG_VIDEO,
      params: { ...LONG_VIDEO.params, width: 1280, height: 720 },
    });
    const frame = await postJson(other, '/v1/frame', FRAME);
    // the frame is next, or already taken (on Redis a worker takes it between two chunks of the first video)
    // (the video read first: a frame still in line when read last was in line before it too)
    const sv = await jobView(a, second.json.job_id);
    const fv = await jobView(other, frame.json.job_id);
    assert.ok(fv.queue_position <= 1 && (fv.queue_position === 0 || sv.queue_position === 2), JSON.stringify([fv, sv]));
    const f = await pollJob(other, frame.json.job_id);
    assert.equal(f.status, 'ready');
    const s = await jobView(a, second.json.job_id);
    assert.ok(
      s.status === 'pending' || s.completed_at > f.completed_at,
      `the frame (completed ${f.completed_at}) was served after the second video (${JSON.stringify(s)})`,
    );
    // the second video is cancelled while it waits or renders: it ends cancelled, with no output
    const del = await fetch(`${other}/v1/jobs/${second.json.job_id}`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    const gone = await pollJob(a, second.json.job_id);
    assert.deepEqual([gone.status, gone.code], ['error', 'cancelled']);
    await fetch(`${a}/v1/jobs/${first.json.job_id}`, { method: 'DELETE' });
  });

  test(`${b.name}: MAX_QUEUED_JOBS at its edge: ${CAP} jobs taken across both APIs, the next 503 queue_full; a cancel frees one`, async () => {
    const [a, other] = b.apis;
    const ids: string[] = [];
    const first = await postJson(a, '/v1/render', LONG_VIDEO);
    ids.push(first.json.job_id);
    for (let i = 1; i < CAP; i++) {
      const r = await postJson(i % 2 ? other : a, '/v1/frame', { ...FRAME, params: { width: 300 + i } });
      assert.equal(r.status, 202, `job ${i + 1} of ${CAP}: ${JSON.stringify(r.json)}`);
      ids.push(r.json.job_id);
    }
    // the blocker may not have ended meanwhile: it is a long video behind nothing, the frames wait behind it
    const over = await fetch(`${other}/v1/frame`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(FRAME),
    });
    assert.equal(over.status, 503);
    assert.equal(((await over.json()) as any).code, 'queue_full');
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assert.equal((await fetch(`${a}/v1/jobs/${ids[CAP - 1]}`, { method: 'DELETE' })).status, 200);
    const again = await postJson(other, '/v1/frame', FRAME);
    assert.equal(again.status, 202, JSON.stringify(again.json));
    for (const id of [...ids, again.json.job_id]) await fetch(`${a}/v1/jobs/${id}`, { method: 'DELETE' });
  });

  test(`${b.name}: a long video cancelled while it renders ends error "cancelled", leaves no output, and the next job renders`, async () => {
    const [a, other] = b.apis;
    const video = await postJson(a, '/v1/render', CANCEL_VIDEO);
    assert.equal(video.status, 202, JSON.stringify(video.json));
    const id = video.json.job_id as string;
    // rendering: first in line and frames done (or already ended, which the DELETE below then says)
    await until('the video renders', async () => {
      const v = await jobView(a, id);
      return v.status !== 'pending' || (v.queue_position === 0 && v.progress > 0);
    });
    const del = await fetch(`${other}/v1/jobs/${id}`, { method: 'DELETE' });
    const answered = (await del.json()) as any;
    assert.equal(del.status, 200, JSON.stringify(answered));
    assert.deepEqual([answered.status, answered.code], ['error', 'cancelled']);
    const ended = await pollJob(a, id);
    assert.deepEqual([ended.status, ended.code, ended.url], ['error', 'cancelled', undefined], JSON.stringify(ended));
    assert.ok(ended.completed_at >= ended.created_at, JSON.stringify(ended));
    // no output to download, and a second cancel finds it ended
    const output = await getJson(`${other}/v1/outputs/${id}.mp4`);
    assert.equal(output.status, 404, JSON.stringify(output.json));
    const again = await fetch(`${a}/v1/jobs/${id}`, { method: 'DELETE' });
    assert.equal(again.status, 409);
    assert.equal(((await again.json()) as any).code, 'job_ended');
    // what its render had written (segments, a partial output, scratch) goes with it
    await until(
      'nothing of the cancelled video is left in DATA_DIR',
      async () => (await filesOf(b.dataDir, id)).length === 0,
      30_000,
    ).catch(async (e) => assert.fail(`${(e as Error).message}: ${(await filesOf(b.dataDir, id)).join(', ')}`));
    // the render slot is free again: the next job renders ready
    const next = await postJson(other, '/v1/frame', FRAME);
    const done = await pollJob(a, next.json.job_id);
    assert.equal(done.status, 'ready', JSON.stringify(done));
    assert.ok(done.completed_at >= ended.completed_at);
    const png = Buffer.from(await (await fetch(`${a}${done.url}`)).arrayBuffer());
    assert.deepEqual([...png.subarray(0, 8)], PNG_SIGNATURE);
  });

  test(`${b.name}: the API processes restart: a job waiting behind a video is still answered, and ends ready`, async () => {
    const blocker = await postJson(b.apis[0], '/v1/render', LONG_VIDEO);
    const frame = await postJson(b.apis[1], '/v1/frame', FRAME);
    const before = await jobView(b.apis[1], frame.json.job_id);
    assert.equal(before.status, 'pending');
    await b.restartApis();
    const after = await pollJob(b.apis[0], frame.json.job_id);
    assert.equal(after.status, 'ready', JSON.stringify(after));
    assert.equal(after.created_at, before.created_at, 'the same job, not a new one');
    const png = await fetch(`${b.apis[1]}${after.url}`);
    assert.equal(png.status, 200);
    await fetch(`${b.apis[0]}/v1/jobs/${blocker.json.job_id}`, { method: 'DELETE' });
  });
});
