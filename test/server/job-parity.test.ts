// One behaviour, two queue backends: the same tests against the embedded service (one process, journal, in-process
// queue) and against Redis mode (a real redis-server, two API processes that render nothing and one render worker),
// so what a client sees cannot drift between the modes: a frame's life and its PNG, a cancel, an Idempotency-Key
// sent to two API processes, the events stream, a webhook verified with the Standard Webhooks library, admission by
// estimated work, the fair queue (a frame posted behind a long video is served first), MAX_QUEUED_JOBS at its edge
// across the API processes, a long video cancelled while it renders, and the API processes restarting under a
// waiting job. A second instance of each backend with a short RETENTION_MS and a small MAX_ENDED_JOBS: ended records
// evicted at the cap's edge, and what retention removes (a job and its output, 404) and when (service.md "Jobs": an
// output and its record go RETENTION_MS after the output was written).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { TestRedis } from '../helpers/redis.js';
import { startProcess, postJson, pollJob, type ClusterProcess } from '../helpers/cluster.js';
import { ownExample } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { LONG_SLIDE } from '../helpers/video.js';
import { stepHeavy } from '../helpers/step-heavy.js';
import { until } from '../helpers/until.js';

interface Backend {
  /** the API processes a client may talk to (embedded: the one service, twice) */
  apis: [string, string];
  /** the DATA_DIR every process of the backend shares (outputs, segments, scratch) */
  dataDir: string;
  /** Stops the API processes (SIGTERM) and starts them again on the same data; apis says where they are now. */
  restartApis(): Promise<void>;
  close(): Promise<void>;
}

/** the cap on jobs waiting or rendering, the same in both modes (in Redis mode counted across the API processes) */
const CAP = 4;
const COMMON = {
  WEBHOOK_ALLOW: '127.0.0.0/8',
  WEBHOOK_RETRY_MS: '200,200',
  STALLED_INTERVAL_MS: '5000',
  MAX_QUEUED_JOBS: String(CAP),
  // one render slot in both modes: the order of the queue is what some tests look at
  RENDER_CONCURRENCY: '1',
};

async function embedded(extra: Record<string, string> = {}): Promise<Backend> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cmr-parity-'));
  const env = { ...COMMON, ...extra, DATA_DIR: dataDir };
  let api = await startProcess('api', env);
  const b: Backend = {
    apis: [api.url!, api.url!],
    dataDir,
    async restartApis() {
      await api.stop();
      api = await startProcess('api', env);
      b.apis = [api.url!, api.url!];
    },
    async close() {
      await api.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return b;
}

async function onRedis(extra: Record<string, string> = {}): Promise<Backend> {
  const redis = await TestRedis.start();
  const dataDir = await mkdtemp(join(tmpdir(), 'cmr-parity-'));
  const env = { ...COMMON, ...extra, REDIS_URL: redis.url, DATA_DIR: dataDir };
  const startApi = () => startProcess('api', { ...env, RENDER_CONCURRENCY: '0' });
  const startApis = () => Promise.all([startApi(), startApi()]);
  // the APIs and the worker start side by side; when one cannot, those that did are stopped
  const started = await Promise.allSettled([startApi(), startApi(), startProcess('worker', env)]);
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
    await redis.close();
    await rm(dataDir, { recursive: true, force: true });
    throw failed.reason;
  }
  const [api0, api1, worker] = started.map((r) => (r as PromiseFulfilledResult<ClusterProcess>).value);
  let apis = [api0!, api1!];
  const b: Backend = {
    apis: [apis[0].url!, apis[1].url!],
    dataDir,
    async restartApis() {
      await Promise.all(apis.map((p) => p.stop()));
      apis = await startApis();
      b.apis = [apis[0].url!, apis[1].url!];
    },
    async close() {
      await Promise.all([...apis, worker!].map((p) => p.stop()));
      await redis.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return b;
}

const FRAME = { source: ownExample('hello.cm'), params: { width: 320 } };
/** about 3.7 s of estimated work, 300 frames (five chunks on Redis) */
const LONG_VIDEO = { source: LONG_SLIDE, params: { fps: 30, width: 640, height: 360 } };

/**
 * 1800 frames (30 chunks on Redis) of a scene whose every frame costs evaluation and is drawn (LONG_SLIDE holds still
 * after 4 s, and still frames cost next to nothing): about 30 s of rendering here, so a cancel finds it rendering
 */
const CANCEL_VIDEO = { source: stepHeavy(13), params: { fps: 30, duration: 60, width: 640, height: 360 } };
/** the same 1800 frames in one piece (a GIF is never cut in chunks): whatever waits behind it waits until it ends */
const LONG_GIF = { source: stepHeavy(13), params: { fps: 30, duration: 60, width: 480 } };
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** the second instance of each backend: a retention short enough to pass in a test, and a cap of two ended records */
const RETENTION_MS = 4_000;
const ENDED_CAP = 2;

async function view(base: string, id: string): Promise<any> {
  return (await fetch(`${base}/v1/jobs/${id}`)).json();
}

/** The HTTP status and JSON body of a GET. */
async function get(url: string): Promise<{ status: number; json: any }> {
  const r = await fetch(url);
  const text = await r.text();
  return { status: r.status, json: text && r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

/** Every file or directory under dir whose name holds the job id (outputs, partial files, segments, scratch). */
async function filesOf(dir: string, id: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((e) => e.includes(id));
}

for (const [name, open] of [
  ['embedded', embedded],
  ['redis', onRedis],
] as const) {
  describe(`jobs on the ${name} backend`, () => {
    let b: Backend;
    const receivers: Receiver[] = [];
    before(async () => {
      b = await open();
    });
    after(async () => {
      for (const r of receivers) await r.close();
      await b?.close();
    });

    test(`${name}: a frame is accepted (202, Location), polled to ready on the other API, and its PNG downloads`, async () => {
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

    test(`${name}: one Idempotency-Key sent to two API processes at once makes one job; another body is 422`, async () => {
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
      assert.equal(((await other.json()) as any).code, 'idempotency_mismatch');
      await pollJob(b.apis[0], [...ids][0]);
    });

    test(`${name}: a webhook is delivered once, from whichever process ended the job, and verifies (standardwebhooks)`, async () => {
      const rx = await startReceiver();
      receivers.push(rx);
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      const posted = await postJson(b.apis[0], '/v1/frame', { ...FRAME, webhook: { url: rx.url, secret } });
      assert.equal(posted.status, 202, JSON.stringify(posted.json));
      const [hit] = await rx.waitFor(1);
      const headers = Object.fromEntries(Object.entries(hit!.headers).map(([k, v]) => [k, String(v)]));
      const payload = new Webhook(secret).verify(hit!.body, headers) as { job_id: string; status: string };
      assert.deepEqual(payload, await view(b.apis[1], posted.json.job_id));
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
      // each delivery once: the receiver answered 204 to both, nothing came again
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(rx.hits.length, 2);
    });

    test(`${name}: the events stream of a job followed on the other API ends with its final view`, async () => {
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

    test(`${name}: a job that cannot finish inside the job limit is refused with 400 too_much_work`, async () => {
      const r = await postJson(b.apis[0], '/v1/render', {
        source: LONG_SLIDE,
        params: { fps: 60, duration: 300, width: 3840, height: 2160 },
      });
      assert.equal(r.status, 400, JSON.stringify(r.json));
      assert.equal(r.json.code, 'too_much_work');
    });

    test(`${name}: behind a long video, a frame is served before a second long video (then cancelled)`, async () => {
      const [a, other] = b.apis;
      const first = await postJson(a, '/v1/render', LONG_VIDEO);
      await until(
        'the first video renders',
        async () => (await view(a, first.json.job_id)).queue_position === 0,
        90_000,
      );
      // a second long video, then a frame: shortest estimated work first (aged by waiting), in both modes
      const second = await postJson(a, '/v1/render', {
        ...LONG_VIDEO,
        params: { ...LONG_VIDEO.params, width: 1280, height: 720 },
      });
      const frame = await postJson(other, '/v1/frame', FRAME);
      // the frame is next, or already taken (on Redis a worker takes it between two chunks of the first video)
      // (the video read first: a frame still in line when read last was in line before it too)
      const sv = await view(a, second.json.job_id);
      const fv = await view(other, frame.json.job_id);
      assert.ok(
        fv.queue_position <= 1 && (fv.queue_position === 0 || sv.queue_position === 2),
        JSON.stringify([fv, sv]),
      );
      const f = await pollJob(other, frame.json.job_id);
      assert.equal(f.status, 'ready');
      const s = await view(a, second.json.job_id);
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

    test(`${name}: MAX_QUEUED_JOBS at its edge: ${CAP} jobs taken across both APIs, the next 503 queue_full; a cancel frees one`, async () => {
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

    test(`${name}: a long video cancelled while it renders ends error "cancelled", leaves no output, and the next job renders`, async () => {
      const [a, other] = b.apis;
      const video = await postJson(a, '/v1/render', CANCEL_VIDEO);
      assert.equal(video.status, 202, JSON.stringify(video.json));
      const id = video.json.job_id as string;
      // rendering: first in line and frames done (or already ended, which the DELETE below then says)
      await until(
        'the video renders',
        async () => {
          const v = await view(a, id);
          return v.status !== 'pending' || (v.queue_position === 0 && v.progress > 0);
        },
        90_000,
      );
      const del = await fetch(`${other}/v1/jobs/${id}`, { method: 'DELETE' });
      const answered = (await del.json()) as any;
      assert.equal(del.status, 200, JSON.stringify(answered));
      assert.deepEqual([answered.status, answered.code], ['error', 'cancelled']);
      const ended = await pollJob(a, id);
      assert.deepEqual([ended.status, ended.code, ended.url], ['error', 'cancelled', undefined], JSON.stringify(ended));
      assert.ok(ended.completed_at >= ended.created_at, JSON.stringify(ended));
      // no output to download, and a second cancel finds it ended
      const output = await get(`${other}/v1/outputs/${id}.mp4`);
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

    test(`${name}: the API processes restart: a job waiting behind a video is still answered, and ends ready`, async () => {
      const blocker = await postJson(b.apis[0], '/v1/render', LONG_VIDEO);
      const frame = await postJson(b.apis[1], '/v1/frame', FRAME);
      const before = await view(b.apis[1], frame.json.job_id);
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

  // A second instance with its own settings (they would upset the tests above): a 4 s retention, two ended records.
  describe(`jobs on the ${name} backend with RETENTION_MS=${RETENTION_MS} and MAX_ENDED_JOBS=${ENDED_CAP}`, () => {
    let s: Backend;
    before(async () => {
      s = await open({ RETENTION_MS: String(RETENTION_MS), MAX_ENDED_JOBS: String(ENDED_CAP) });
    });
    after(async () => {
      await s?.close();
    });

    test(`${name}: MAX_ENDED_JOBS at its edge: ${ENDED_CAP} ended jobs are all kept; one more ends and the first-ended goes (404, output 404), the newest ${ENDED_CAP} stay`, async () => {
      const [a, other] = s.apis;
      const ended: any[] = [];
      for (let i = 0; i <= ENDED_CAP; i++) {
        // one after the other: each has ended before the next is posted, so the order they ended in is known
        const posted = await postJson(i % 2 ? other : a, '/v1/frame', { ...FRAME, params: { width: 300 + i } });
        assert.equal(posted.status, 202, JSON.stringify(posted.json));
        const done = await pollJob(a, posted.json.job_id);
        assert.equal(done.status, 'ready', JSON.stringify(done));
        ended.push(done);
        if (i === ENDED_CAP - 1)
          for (const v of ended)
            assert.equal((await get(`${other}/v1/jobs/${v.job_id}`)).status, 200, `at the cap, ${v.job_id} is kept`);
      }
      const [first, ...newest] = ended;
      assert.ok(newest.every((v) => v.completed_at >= first.completed_at));
      const gone = await get(`${other}/v1/jobs/${first.job_id}`);
      assert.equal(gone.status, 404, `the first-ended job past the cap: ${JSON.stringify(gone.json)}`);
      assert.equal(gone.json.error, 'not_found');
      assert.equal((await get(`${other}${first.url}`)).status, 404, 'its output goes with it');
      for (const v of newest) {
        assert.equal((await get(`${a}/v1/jobs/${v.job_id}`)).status, 200, `${v.job_id} is one of the newest`);
        assert.equal((await fetch(`${other}${v.url}`, { method: 'HEAD' })).status, 200);
      }
    });

    test(`${name}: a ready frame's PNG downloads; once RETENTION_MS has passed since it was written, the job and the file are 404`, async () => {
      const [a, other] = s.apis;
      const posted = await postJson(a, '/v1/frame', FRAME);
      const done = await pollJob(other, posted.json.job_id);
      assert.equal(done.status, 'ready', JSON.stringify(done));
      const r = await fetch(`${a}${done.url}`);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'image/png');
      assert.deepEqual([...Buffer.from(await r.arrayBuffer()).subarray(0, 8)], PNG_SIGNATURE);
      // completed_at is when the output was written: retention counts from there
      await until(
        'RETENTION_MS has passed since the output was written',
        async () => {
          return Date.now() > done.completed_at + RETENTION_MS;
        },
        90_000,
      );
      // the embedded service sweeps at start and then once a minute (retention.ts), Redis drops a record when its
      // TTL runs out: a restart makes the embedded sweep now, not up to a minute later
      await s.restartApis();
      const job = await get(`${s.apis[1]}/v1/jobs/${done.job_id}`);
      assert.equal(job.status, 404, JSON.stringify(job.json));
      assert.equal(job.json.error, 'not_found');
      const file = await get(`${s.apis[0]}${done.url}`);
      assert.equal(file.status, 404, JSON.stringify(file.json));
    });

    test(`${name}: retention counts from the output's writing: a frame that waited behind a GIF for longer than RETENTION_MS is still there, ends ready and downloads`, async () => {
      const [a, other] = s.apis;
      const gif = await postJson(a, '/v1/gif', LONG_GIF);
      assert.equal(gif.status, 202, JSON.stringify(gif.json));
      // (or no longer pending: the assertions below then say what it is)
      await until(
        'the GIF renders',
        async () => {
          const v = await view(a, gif.json.job_id);
          return v.status !== 'pending' || v.queue_position === 0;
        },
        90_000,
      );
      const posted = await postJson(other, '/v1/frame', FRAME);
      const waiting = await get(`${a}/v1/jobs/${posted.json.job_id}`);
      assert.deepEqual([waiting.status, waiting.json.status], [200, 'pending'], JSON.stringify(waiting.json));
      await until(
        'the frame has waited longer than RETENTION_MS',
        async () => {
          return Date.now() > waiting.json.created_at + RETENTION_MS;
        },
        90_000,
      );
      // a pending job has no output yet: nothing of it has expired
      const still = await get(`${a}/v1/jobs/${posted.json.job_id}`);
      assert.deepEqual([still.status, still.json.status], [200, 'pending'], JSON.stringify(still.json));
      // its end is read from its events stream, opened before the GIF goes: polling could come back after the output's
      // own RETENTION_MS (4 s) on a loaded machine and find nothing
      const events = await fetch(`${a}/v1/jobs/${posted.json.job_id}/events`, { signal: AbortSignal.timeout(90_000) });
      const cancelled = await fetch(`${other}/v1/jobs/${gif.json.job_id}`, { method: 'DELETE' });
      assert.equal(cancelled.status, 200, 'the GIF was still rendering');
      const text = await events.text();
      const end = /event: end\ndata: (.*)\n/.exec(text);
      assert.ok(end, text);
      const done = JSON.parse(end[1]!);
      assert.equal(done.status, 'ready', JSON.stringify(done));
      assert.ok(done.completed_at - done.created_at > RETENTION_MS, JSON.stringify(done));
      const r = await fetch(`${other}${done.url}`);
      assert.equal(r.status, 200);
      assert.deepEqual([...Buffer.from(await r.arrayBuffer()).subarray(0, 8)], PNG_SIGNATURE);
    });
  });
}
