// A browser that comes back unable to draw. The service's Chromium crashes and is relaunched on a machine whose EGL
// has gone away meanwhile (glvnd pointed at no vendor: Chromium then quietly falls back to SwiftShader, which the
// relaunch's probe frame must see through). The renderer says why it cannot draw (/healthz 503
// renderer_unavailable), fails jobs with that reason instead of drawing on another backend, and recovers by itself
// once EGL is back. And the step a job takes when fresh pages of a browser lose their GL too: a relaunch; and a GPU
// process that hangs (stopped with SIGSTOP, as a wedged driver would leave it): the probe gives up, the browser goes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { realRenderer, startApp, type TestApp } from '../helpers/app.js';
import { runJob } from '../helpers/job-client.js';
import type { ChromiumRenderer } from '../../src/render/chromium-renderer.js';
import { until } from '../helpers/until.js';
import { killBrowser } from '../helpers/kill-browser.js';
import { descendants } from '../helpers/service-process.js';

const NO_EGL = '__EGL_VENDOR_LIBRARY_FILENAMES';
const FRAME = {
  source: `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  compose [rect(width: 1920px, height: 1080px, fill: #204060)]\n}\n`,
  params: { width: 64, height: 36 },
};

let t: TestApp | null = null;
let t2: TestApp | null = null;
let t3: TestApp | null = null;
after(async () => {
  delete process.env[NO_EGL];
  await t?.close();
  await t2?.close();
  await t3?.close();
});

test('recover({ relaunch: true }) puts a new browser in place of one that still answers; the next frame renders', async () => {
  const renderer: ChromiumRenderer = realRenderer();
  t2 = await startApp({ renderer });
  assert.equal((await runJob(t2.app, '/v1/frame', FRAME)).json().status, 'ready');
  const launches = renderer.browser.launches;
  await renderer.browser.recover({ relaunch: true });
  assert.equal(renderer.browser.launches, launches + 1);
  assert.equal(renderer.browser.connected, true);
  assert.equal(renderer.fault(), null);
  const back = (await runJob(t2.app, '/v1/frame', FRAME)).json();
  assert.equal(back.status, 'ready', JSON.stringify(back));
  assert.equal(renderer.browser.launches, launches + 1, 'the frame drew in the relaunched browser');
  await t2.close();
  t2 = null;
});

test('a GPU process that hangs: the recovery’s probe frame gives up, the browser is replaced, the next frame renders', async () => {
  const renderer: ChromiumRenderer = realRenderer();
  t3 = await startApp({ renderer });
  assert.equal((await runJob(t3.app, '/v1/frame', FRAME)).json().status, 'ready');
  const launches = renderer.browser.launches;
  const gpu = descendants(process.pid).filter((p) => p.cmdline.includes('--type=gpu-process'));
  assert.equal(gpu.length, 1, 'found the GPU process');
  process.kill(gpu[0].pid, 'SIGSTOP');
  try {
    // before, the probe's WebGL context waited on the stopped process for ever, and so did every job after
    await renderer.browser.recover();
    assert.equal(renderer.browser.launches, launches + 1);
    assert.equal(renderer.fault(), null);
    const back = (await runJob(t3.app, '/v1/frame', FRAME)).json();
    assert.equal(back.status, 'ready', JSON.stringify(back));
    // the stopped process went with its browser (killed with the browser's process group), not left stopped
    await until(
      'the stopped GPU process to be gone',
      () => !descendants(process.pid).some((p) => p.pid === gpu[0].pid),
      30_000,
    );
  } finally {
    if (descendants(process.pid).some((p) => p.pid === gpu[0].pid)) process.kill(gpu[0].pid, 'SIGKILL');
  }
});

test('a relaunch that cannot draw: /healthz 503 renderer_unavailable, jobs fail saying so; EGL back: it recovers', async (ctx) => {
  const renderer: ChromiumRenderer = realRenderer();
  t = await startApp({ renderer });
  if (renderer.gl?.backend !== 'egl')
    return ctx.skip(`needs the egl backend (this run draws on ${renderer.gl?.backend})`);
  const ok = await runJob(t.app, '/v1/frame', FRAME);
  assert.equal(ok.json().status, 'ready', ok.body);

  process.env[NO_EGL] = '/nonexistent/egl-vendor.json';
  const launches = renderer.browser.launches;
  killBrowser(renderer.browser);
  await until('the renderer to report its fault', () => renderer.fault() !== null, 90_000);
  assert.equal(renderer.browser.launches, launches, 'no browser that cannot draw counts as launched');

  const h = await t.app.inject({ url: '/healthz' });
  assert.equal(h.statusCode, 503, h.body);
  assert.equal(h.json().code, 'renderer_unavailable');
  assert.match(h.json().error, /cannot draw .*fell back to SwiftShader/);
  assert.ok(Number(h.headers['retry-after']) >= 1);
  const failed = (await runJob(t.app, '/v1/frame', FRAME)).json();
  assert.equal(failed.status, 'error', JSON.stringify(failed));
  assert.match(failed.message, /the renderer cannot draw now/);

  delete process.env[NO_EGL];
  await until(
    '/healthz to say ok again',
    async () => (await t!.app.inject({ url: '/healthz' })).statusCode === 200,
    90_000,
  );
  assert.equal(renderer.browser.launches, launches + 1);
  assert.equal(renderer.fault(), null);
  const back = (await runJob(t.app, '/v1/frame', FRAME)).json();
  assert.equal(back.status, 'ready', JSON.stringify(back));
});
