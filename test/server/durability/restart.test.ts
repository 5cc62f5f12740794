// The real service as a child process, killed with SIGKILL mid-render and while jobs are queued, stopped with
// SIGTERM, and started again on the same DATA_DIR: every job is accounted for.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess, SQUARE, MOVING, sleep } from '../../helpers/service-process.js';
import { until } from '../../helpers/until.js';
import { INTERRUPTED_MESSAGE } from '../../../src/server/durability/recovery.js';

const live = new Set<ServiceProcess>();
const dirs: string[] = [];
after(async () => {
  for (const s of live) await s.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cmrender-restart-'));
  dirs.push(d);
  return d;
}
async function start(dir: string, env: Record<string, string> = {}) {
  const s = await ServiceProcess.start(dir, env);
  live.add(s);
  return s;
}
/** SIGKILL the service (and, like the OOM killer or a power cut would, leave nothing of it running). */
async function crash(s: ServiceProcess) {
  const kids = s.descendants();
  const r = await s.kill('SIGKILL');
  assert.equal(r.signal, 'SIGKILL');
  for (const k of kids) {
    try {
      process.kill(k.pid, 'SIGKILL');
    } catch {
      // gone with its parent
    }
  }
  live.delete(s);
}
const FRAME = (fill: string) => ({ source: SQUARE(fill), params: { width: 64, height: 64 } });
/** A video long enough (18000 frames) to be killed while it renders. */
const LONG = { source: MOVING, params: { width: 64, height: 64, fps: 60, duration: 300 } };
const rendering = (s: ServiceProcess, id: string) =>
  s.waitJob(id, 60_000, (a) => a.body?.status === 'pending' && a.body.queue_position === 0 && a.body.progress > 0);

test(
  'SIGKILL mid-render with jobs queued: after restarts the ready job is intact, the rendering job runs again once then ends interrupted, the queued frames run in order between its chunks',
  { timeout: 240_000 },
  async () => {
    const dir = dataDir();
    let s = await start(dir);
    const done = await s.enqueue('/v1/frame', FRAME('#00ff00'));
    const doneView = (await s.waitJob(done)).body;
    assert.equal(doneView.status, 'ready');
    const doneBytes = Buffer.from(await (await fetch(`http://127.0.0.1:${s.port}${doneView.url}`)).arrayBuffer());
    const failed = await s.enqueue('/v1/frame', { source: 'runner "0.0.3";\nscene s() -> Frame { compose [nope] }\n' });
    assert.equal((await s.waitJob(failed)).status, 500);

    const long = await s.enqueue('/v1/render', LONG);
    const queued = [];
    for (const fill of ['#ff0000', '#0000ff', '#ffff00']) queued.push(await s.enqueue('/v1/frame', FRAME(fill)));
    const created = (await s.job(long)).body.created_at;
    await rendering(s, long);
    await crash(s);

    // first restart: everything is there; the long job renders again, and the frames, each a short job, are served
    // between two of its chunks in their order (issue 32: they no longer wait for the whole video)
    s = await start(dir);
    const again = await rendering(s, long);
    assert.equal(again.body.created_at, created, 'created_at comes from the stored record');
    const ends = [];
    for (const id of queued) {
      const r = await s.waitJob(id, 60_000);
      assert.equal(r.body.status, 'ready', r.text);
      ends.push(r.body.completed_at);
    }
    assert.deepEqual(
      [...ends].sort((a, b) => a - b),
      ends,
      'queued jobs completed in their order',
    );
    const still = await s.job(long);
    assert.equal(still.body.status, 'pending', 'the frames went between its chunks; the video still renders');
    const d = await s.job(done);
    assert.equal(d.status, 200);
    assert.deepEqual(d.body, doneView);
    const bytes = Buffer.from(await (await fetch(`http://127.0.0.1:${s.port}${doneView.url}`)).arrayBuffer());
    assert.ok(bytes.equals(doneBytes), 'the output of a ready job survives the crash');
    assert.equal((await s.job(failed)).status, 500);
    await rendering(s, long);
    await crash(s);

    // second restart: the long job was interrupted twice -> error; the frames stay ready
    s = await start(dir);
    const e = await s.job(long);
    assert.equal(e.status, 500);
    assert.equal(e.body.status, 'error');
    assert.equal(e.body.message, INTERRUPTED_MESSAGE);
    assert.equal(e.body.code, 'interrupted');
    for (let i = 0; i < queued.length; i++) {
      const r = await s.job(queued[i]!);
      assert.equal(r.body.status, 'ready', r.text);
      assert.equal(r.body.completed_at, ends[i]);
    }
    // no partial output of the interrupted video is left behind or served
    assert.equal((await s.req('GET', `/v1/outputs/${long}.mp4`)).status, 404);
    assert.ok(
      !readdirSync(join(dir, 'outputs')).some((f) => f.startsWith(long)),
      readdirSync(join(dir, 'outputs')).join(','),
    );
    await s.kill('SIGTERM');
    live.delete(s);
  },
);

test(
  'a job interrupted once is rendered again to the end; SIGKILL while only queued jobs wait loses none',
  { timeout: 180_000 },
  async () => {
    const dir = dataDir();
    let s = await start(dir);
    const video = await s.enqueue('/v1/render', {
      source: MOVING,
      params: { width: 64, height: 64, fps: 30, duration: 20 },
    });
    const waiting = [];
    for (let i = 0; i < 5; i++)
      waiting.push(await s.enqueue('/v1/frame', FRAME(`#${(i * 40).toString(16).padStart(2, '0')}8040`)));
    await rendering(s, video);
    await crash(s);

    s = await start(dir);
    const v = await s.waitJob(video, 120_000);
    assert.equal(v.status, 200, v.text);
    assert.equal(v.body.status, 'ready');
    const mp4 = await s.req('HEAD', v.body.url);
    assert.equal(mp4.status, 200);
    // kill again while some frames still wait (or all are done): none may be lost
    await crash(s);
    s = await start(dir);
    for (const id of waiting) assert.equal((await s.waitJob(id, 60_000)).body.status, 'ready');
    assert.equal((await s.job(video)).body.status, 'ready');
    await s.kill('SIGTERM');
    live.delete(s);
  },
);

test(
  'expiry comes from stored times: a job past its retention while the service was down is gone at the next start',
  { timeout: 120_000 },
  async () => {
    const dir = dataDir();
    let s = await start(dir, { RETENTION_MS: '5000' });
    const id = await s.enqueue('/v1/frame', FRAME('#123456'));
    const view = (await s.waitJob(id)).body;
    assert.equal(view.status, 'ready');
    const file = join(dir, 'outputs', `${id}.png`);
    assert.ok(existsSync(file));
    await crash(s);
    // (that a ready job within its retention survives a crash is shown by the first test)
    await sleep(Math.max(0, view.completed_at + 5000 - Date.now()) + 200);
    s = await start(dir, { RETENTION_MS: '5000' });
    assert.equal((await s.job(id)).status, 404);
    assert.equal((await s.req('GET', view.url)).status, 404);
    assert.ok(!existsSync(file), 'the expired output is deleted at start');
    await s.kill('SIGTERM');
    live.delete(s);
  },
);

test(
  'SIGTERM: stops taking jobs, checkpoints the job in hand within the grace, closes Chromium, exits 0; the restart finishes every job',
  { timeout: 180_000 },
  async () => {
    const dir = dataDir();
    let s = await start(dir, { SHUTDOWN_GRACE_MS: '1500' });
    const long = await s.enqueue('/v1/render', LONG);
    const waiting = [await s.enqueue('/v1/frame', FRAME('#ff0000')), await s.enqueue('/v1/frame', FRAME('#00ff00'))];
    await rendering(s, long);
    const kids = s.descendants();
    assert.ok(
      kids.some((k) => /chrom/i.test(k.comm)),
      'chromium runs under the service',
    );
    const t0 = Date.now();
    s.child.kill('SIGTERM');
    // while the job in hand has its grace, new work is refused with 503
    await until('the shutdown to begin', () => s.log.includes('shutting down'), 5_000);
    const during = await s.req('POST', '/v1/frame', FRAME('#0000ff'));
    assert.equal(during.status, 503, during.text);
    assert.equal(during.body.code, 'shutting_down');
    assert.ok(Number(during.headers.get('retry-after')) >= 1);
    const r = await s.exit;
    live.delete(s);
    assert.equal(r.code, 0, s.log.slice(-3000));
    assert.ok(Date.now() - t0 < 1500 + 10_000, `shutdown took ${Date.now() - t0} ms`);
    await until('chromium and its children to exit', () => kids.every((k) => !existsSync(`/proc/${k.pid}`)), 10_000);
    assert.match(s.log, /checkpointed/);

    // the checkpointed job is not counted as interrupted: it renders again from the start, and the frames that waited
    // are served between two of its chunks
    s = await start(dir, { SHUTDOWN_GRACE_MS: '1500' });
    const again = await rendering(s, long);
    assert.equal(again.body.queue_position, 0);
    for (const id of waiting) assert.equal((await s.waitJob(id, 60_000)).body.status, 'ready');
    // a crash now is its first interruption (the SIGTERM checkpoint did not count): it renders once more
    await rendering(s, long);
    await crash(s);
    s = await start(dir);
    await rendering(s, long);
    for (const id of waiting) assert.equal((await s.job(id)).body.status, 'ready');
    await crash(s);
  },
);

test(
  'SIGTERM with a short job in hand: it finishes within the grace and is ready after the restart',
  { timeout: 120_000 },
  async () => {
    const dir = dataDir();
    let s = await start(dir, { SHUTDOWN_GRACE_MS: '20000' });
    const id = await s.enqueue('/v1/render', {
      source: MOVING,
      params: { width: 64, height: 64, fps: 30, duration: 2 },
    });
    await s.waitJob(id, 30_000, (a) => a.body?.queue_position === 0);
    const r = await s.kill('SIGTERM');
    live.delete(s);
    assert.equal(r.code, 0);
    s = await start(dir);
    const v = await s.job(id);
    assert.equal(v.body.status, 'ready', v.text);
    assert.equal((await s.req('HEAD', v.body.url)).status, 200);
    await s.kill('SIGTERM');
    live.delete(s);
  },
);
