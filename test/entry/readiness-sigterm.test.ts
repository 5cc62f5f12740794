// The real service (src/entry/server.ts, Chromium, ffmpeg) stopped with SIGTERM while a video renders: /readyz turns
// 503 shutting_down first, new job POSTs are refused with 503 and retry-after, the video finishes within
// SHUTDOWN_GRACE_MS, the process exits 0, and the restarted service serves the finished video.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess, MOVING, SQUARE } from '../helpers/service-process.js';
import { until } from '../helpers/until.js';

const live = new Set<ServiceProcess>();
const dir = mkdtempSync(join(tmpdir(), 'cmrender-sigterm-'));
after(async () => {
  for (const s of live) await s.stop();
  await rm(dir, { recursive: true, force: true });
});

test(
  'SIGTERM during a video: readiness 503 first, new work refused, the video finishes, exit 0',
  { timeout: 180_000 },
  async () => {
    let s = await ServiceProcess.start(dir, { SHUTDOWN_GRACE_MS: '120000' });
    live.add(s);
    // /healthz answered at start; /readyz says 200 once the renderer is warm
    await s.ready();
    const id = await s.enqueue('/v1/render', {
      source: MOVING,
      params: { width: 64, height: 64, fps: 30, duration: 6 },
    });
    // rendering: some progress reported, not yet ready
    await s.waitJob(id, 60_000, (a) => a.body?.status !== 'pending' || (a.body?.progress ?? 0) > 0);
    assert.equal((await s.job(id)).body.status, 'pending', 'still rendering when the signal comes');

    s.child.kill('SIGTERM');
    await until('the shutdown to begin', () => s.log.includes('shutting down'), 10_000);
    const ready = await s.req('GET', '/readyz');
    assert.equal(ready.status, 503, ready.text);
    assert.equal(ready.body.code, 'shutting_down');
    const refused = await s.req('POST', '/v1/frame', { source: SQUARE() });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.code, 'shutting_down');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);

    const r = await s.exit;
    live.delete(s);
    assert.equal(r.code, 0, s.log.slice(-3000));
    assert.match(s.log, new RegExp(`"job_id":"${id}"[^\\n]*"event":"job_ready"`), 'the video finished before the exit');
    assert.doesNotMatch(s.log, /checkpointed/);

    s = await ServiceProcess.start(dir);
    live.add(s);
    const v = await s.job(id);
    assert.equal(v.body.status, 'ready', v.text);
    assert.equal((await s.req('HEAD', v.body.url)).status, 200);
    await s.kill('SIGTERM');
    live.delete(s);
  },
);
