// Cancelling a rendering video with the real renderer: the render stops through its AbortSignal, its encoder is
// gone and no partial file stays (no `.tmp`) by the time DELETE answers; the browser is not relaunched and the next
// job renders on the page pool.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, realRenderer, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { MOVING } from '../../helpers/video.js';
import type { ChromiumRenderer } from '../../../src/render/chromium-renderer.js';
import { until } from '../../helpers/until.js';

let t: TestApp;
let renderer: ChromiumRenderer;
before(async () => {
  renderer = realRenderer();
  t = await startApp({ renderer });
});
after(() => t.close());

/** The names of this process's child processes (Chromium, ffmpeg). */
function children(): string[] {
  try {
    return execFileSync('ps', ['-o', 'comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

test('cancelling a rendering video stops it, frees its encoder and page, leaves no .tmp; the next job renders', async () => {
  // a warm-up job, so the browser is up and its launch count settled
  const warm = (await post(t.app, '/v1/frame', { source: MOVING, params: { width: 64, height: 36 } })).json().job_id;
  assert.equal((await waitJob(t.app, warm)).json().status, 'ready');
  const launches = renderer.browser.launches;

  const id = (
    await post(t.app, '/v1/render', { source: MOVING, params: { fps: 30, duration: 60, width: 320, height: 180 } })
  ).json().job_id;
  const next = (
    await post(t.app, '/v1/render', { source: MOVING, params: { fps: 10, duration: 0.5, width: 64, height: 36 } })
  ).json().job_id;
  // wait (bounded) until frames are being encoded: the page and ffmpeg are in use
  let v: { status: string; queue_position?: number; progress?: number } | undefined;
  await until(
    () => `the video to start rendering (last: ${JSON.stringify(v)})`,
    async () => {
      v = (await t.app.inject({ url: `/v1/jobs/${id}` })).json();
      return v!.status !== 'pending' || (v!.queue_position === 0 && v!.progress! > 0);
    },
    60_000,
  );
  assert.equal(v?.status, 'pending', 'the long video must still be rendering');
  assert.ok(children().includes('ffmpeg'), 'an encoder runs');

  const r = await t.app.inject({ method: 'DELETE', url: `/v1/jobs/${id}` });
  assert.equal(r.statusCode, 200);
  assert.deepEqual([r.json().status, r.json().code], ['error', 'cancelled']);
  const outputs = join(t.dataDir, 'outputs');
  assert.deepEqual(
    readdirSync(outputs).filter((f) => f.endsWith('.tmp') || f.startsWith(id)),
    [],
    'no partial file',
  );

  const after = (await waitJob(t.app, next)).json();
  assert.equal(after.status, 'ready', JSON.stringify(after));
  assert.equal(renderer.browser.launches, launches, 'the browser was not relaunched');
  // one render slot keeps the two pages a video draws with
  await until(
    () => `two warm pages (idle: ${renderer.browser.idleCount})`,
    () => renderer.browser.idleCount >= 2,
    5_000,
  );
  assert.equal(renderer.browser.idleCount, 2, 'the page pool is whole again');
  assert.ok(!children().includes('ffmpeg'), 'no encoder left running');
  assert.deepEqual(
    readdirSync(outputs).filter((f) => f.endsWith('.tmp')),
    [],
  );
  assert.equal((await t.app.inject({ url: `/v1/jobs/${id}` })).statusCode, 500, 'it stays cancelled');
});
