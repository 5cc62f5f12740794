// RENDER_GL and RENDER_ENCODER as an operator meets them: the service started as a process (`src/entry/server.ts`), the backend it got
// read from its start log (gl_backend, gl_renderer, taken from a probe frame's unmasked renderer string), and a
// video drawn on egl checked against the PNG frames of the same times. A machine whose EGL cannot draw is made by
// pointing glvnd at no EGL vendor (__EGL_VENDOR_LIBRARY_FILENAMES): Chromium then quietly falls back to SwiftShader,
// which the probe must see through. NVENC is checked for real: skipped by name where it cannot encode, and its
// absence must stop a start that asked for it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { ServiceProcess } from '../helpers/service-process.js';
import { spawnService } from '../helpers/service-spawn.js';
import { decodeFrames, psnr, SPIN } from '../helpers/video.js';
import { nvencProblem } from '../../src/render/ffmpeg/nvenc.js';

const noNvenc = await nvencProblem();

const root = mkdtempSync(join(tmpdir(), 'cmrender-gl-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const dataDir = () => join(root, `data-${n++}`);

/** glvnd finds no EGL vendor: the state of a machine without Mesa's EGL (or with a broken GPU driver). */
const NO_EGL = { __EGL_VENDOR_LIBRARY_FILENAMES: join(root, 'no-such-vendor.json') };

/** A machine with a GPU draws egl on it, not on llvmpipe. */
const hasGpu = existsSync('/dev/nvidia0') || existsSync('/dev/dri/renderD128');

/** The service's `chromium launched` log line. */
function launchLine(log: string): { gl_backend: string; gl_renderer: string } {
  const line = log
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; gl_backend: string; gl_renderer: string })
    .find((l) => l.msg === 'chromium launched');
  assert.ok(line, `no "chromium launched" line in:\n${log.slice(-2000)}`);
  return line;
}

test('RENDER_GL=egl: drawn by Mesa llvmpipe (logged at start), a video decodes to the PNG frames of its times (>= 40 dB)', async () => {
  const s = await ServiceProcess.start(dataDir(), { RENDER_GL: 'egl' });
  try {
    // /healthz answers while Chromium still warms up: the launch line is logged by the time /readyz says ready
    await s.ready();
    const gl = launchLine(s.log);
    assert.equal(gl.gl_backend, 'egl');
    if (hasGpu) assert.doesNotMatch(gl.gl_renderer, /swiftshader/i);
    else assert.match(gl.gl_renderer, /llvmpipe/, 'no GPU here: ANGLE on EGL is Mesa llvmpipe');

    const fps = 10;
    const [width, height] = [320, 180];
    const video = await s.waitJob(
      await s.enqueue('/v1/render', { source: SPIN, params: { width, height, fps, duration: 1 } }),
    );
    assert.equal(video.body.status, 'ready', video.text);
    const mp4 = join(root, 'egl.mp4');
    writeFileSync(mp4, Buffer.from(await (await fetch(`http://127.0.0.1:${s.port}${video.body.url}`)).arrayBuffer()));
    const frames = decodeFrames(mp4, width, height);
    assert.equal(frames.length, fps);
    for (const i of [0, 3, 6, 9]) {
      const f = await s.waitJob(await s.enqueue('/v1/frame', { source: SPIN, params: { width, height, at: i / fps } }));
      assert.equal(f.body.status, 'ready', f.text);
      const png = PNG.sync.read(
        Buffer.from(await (await fetch(`http://127.0.0.1:${s.port}${f.body.url}`)).arrayBuffer()),
      );
      const db = psnr(frames[i]!, png);
      assert.ok(db >= 40, `frame ${i}: ${db.toFixed(1)} dB against the PNG of ${i / fps} s`);
    }
  } finally {
    await s.stop();
  }
});

/** Starts the service expecting it to refuse: its exit code and its fatal log line. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; fatal: string; out: string }> {
  const child = spawnService('api', { ...env, PORT: '0', DATA_DIR: dataDir(), LOG_LEVEL: 'info' });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  const fatal = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string })
    .find((l) => l.level === 60);
  return { code, fatal: fatal?.msg ?? '', out };
}

test('RENDER_GL=egl where EGL cannot draw: the service does not start, and says why in one line', async () => {
  const { code, fatal, out } = await failedStart({ ...NO_EGL, RENDER_GL: 'egl' });
  assert.equal(code, 1, out);
  assert.match(fatal, /RENDER_GL=egl/);
  assert.match(fatal, /fell back to SwiftShader/);
  assert.match(fatal, /libegl-mesa0/);
  assert.doesNotMatch(out, /cmrender listening/);
});

test(
  'RENDER_ENCODER=nvenc where NVENC cannot encode: the service does not start, and says why in one line',
  { skip: !noNvenc && 'this machine has a usable h264_nvenc' },
  async () => {
    const { code, fatal, out } = await failedStart({ RENDER_ENCODER: 'nvenc' });
    assert.equal(code, 1, out);
    assert.match(fatal, /RENDER_ENCODER=nvenc but h264_nvenc cannot encode here/);
    assert.doesNotMatch(out, /cmrender listening/);
  },
);

test(
  'RENDER_ENCODER=nvenc: a video is H.264 from NVENC with every frame, each within 35 dB of the PNG of its time',
  { skip: noNvenc ? `needs a usable h264_nvenc (an NVIDIA GPU): ${noNvenc}` : false },
  async () => {
    const s = await ServiceProcess.start(dataDir(), { RENDER_ENCODER: 'nvenc' });
    try {
      assert.match(s.log, /"encoder":"nvenc"/);
      const fps = 10;
      const [width, height] = [320, 180];
      const v = await s.waitJob(
        await s.enqueue('/v1/render', { source: SPIN, params: { width, height, fps, duration: 1 } }),
      );
      assert.equal(v.body.status, 'ready', v.text);
      const mp4 = join(root, 'nvenc.mp4');
      writeFileSync(mp4, Buffer.from(await (await fetch(`http://127.0.0.1:${s.port}${v.body.url}`)).arrayBuffer()));
      const frames = decodeFrames(mp4, width, height);
      assert.equal(frames.length, fps);
      const f = await s.waitJob(await s.enqueue('/v1/frame', { source: SPIN, params: { width, height, at: 0.5 } }));
      const png = PNG.sync.read(
        Buffer.from(await (await fetch(`http://127.0.0.1:${s.port}${f.body.url}`)).arrayBuffer()),
      );
      assert.ok(psnr(frames[5]!, png) >= 35);
    } finally {
      await s.stop();
    }
  },
);

test('RENDER_GL unset (auto) where EGL cannot draw: SwiftShader, logged, and frames still render', async () => {
  const s = await ServiceProcess.start(dataDir(), { ...NO_EGL, RENDER_GL: '' });
  try {
    // /healthz answers while Chromium still warms up: the launch line is logged by the time /readyz says ready
    await s.ready();
    const gl = launchLine(s.log);
    assert.equal(gl.gl_backend, 'swiftshader');
    assert.match(gl.gl_renderer, /SwiftShader/);
    assert.match(s.log, /GL backend skipped: egl: Chromium fell back to SwiftShader/);
    const f = await s.waitJob(await s.enqueue('/v1/frame', { source: SPIN, params: { width: 160, height: 90 } }));
    assert.equal(f.body.status, 'ready', f.text);
  } finally {
    await s.stop();
  }
});
