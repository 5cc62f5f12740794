// POST /v1/gif through the real service, Chromium and ffmpeg: the frame count and the loop by decoding the file,
// the GIF's own limits at and just past each edge, a failing encoder's message, and no partial file left behind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { probe } from '../../../src/render/ffmpeg/probe.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readdir, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, realRenderer, silentLog, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { post, waitJob, runJob } from '../../helpers/job-client.js';
import { MOVING } from '../../helpers/video.js';
import { ChromiumRenderer } from '../../../src/render/chromium-renderer.js';
import { LIMITS } from '../../../src/contract/limits.js';
import { testGl } from '../../helpers/gl.js';

let t: TestApp;
before(async () => {
  t = await startApp({ renderer: realRenderer() });
});
after(async () => {
  await t.close();
});

const G = LIMITS.gif;
const work = mkdtempSync(join(tmpdir(), 'cmrender-gif-route-'));

/** Frames of a GIF, counted by ffprobe (src/render/ffmpeg/probe.ts). */
async function framesOf(gif: Buffer): Promise<number> {
  const file = join(work, `probe-${Math.random().toString(36).slice(2)}.gif`);
  writeFileSync(file, gif);
  return (await probe(file)).frames;
}

/** The NETSCAPE2.0 application extension's loop count (0 = for ever), or null without one. */
function loopCount(gif: Buffer): number | null {
  const at = gif.indexOf(Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1')]));
  return at < 0 ? null : gif.readUInt16LE(at + 16);
}

/** Files of the output directory that are not finished outputs. */
async function partials(dataDir: string): Promise<string[]> {
  return (await readdir(join(dataDir, 'outputs'))).filter((n) => /\.(tmp|frames\.deflate|palette\.png)$/.test(n));
}

test('POST /v1/gif: kind gif, 480 wide by default, round(duration x fps) frames, loops for ever', async () => {
  const fps = 10,
    duration = 1.3;
  const r = await post(t.app, '/v1/gif', { source: MOVING, params: { fps, duration } });
  assert.equal(r.statusCode, 202, r.body);
  assert.equal(r.json().kind, 'gif');
  const first = (await t.app.inject({ url: `/v1/jobs/${r.json().job_id}` })).json();
  if (first.status === 'pending') assert.equal(typeof first.queue_position, 'number');
  const done = (await waitJob(t.app, r.json().job_id)).json();
  assert.equal(done.status, 'ready', JSON.stringify(done));
  assert.equal(done.mime, 'image/gif');
  assert.match(done.url, /\.gif$/);
  assert.deepEqual([done.width, done.height], [G.width.default, 270]);
  const out = await t.app.inject({ url: done.url });
  assert.equal(out.headers['content-type'], 'image/gif');
  assert.equal(out.rawPayload.toString('latin1', 0, 6), 'GIF89a');
  assert.equal(await framesOf(out.rawPayload), Math.round(duration * fps));
  assert.equal(loopCount(out.rawPayload), 0);
  assert.deepEqual(await partials(t.dataDir), []);
});

test('POST /v1/gif: the shortest clip (0.1 s) at the lowest size (16 x 16) renders', async () => {
  const r = await runJob(t.app, '/v1/gif', {
    source: MOVING,
    params: { fps: G.fps.max, duration: G.duration.min, width: G.width.min, height: G.height.min },
  });
  const done = r.json();
  assert.equal(done.status, 'ready', r.body);
  assert.deepEqual([done.width, done.height], [16, 16]);
  const gif = (await t.app.inject({ url: done.url })).rawPayload;
  assert.equal(await framesOf(gif), Math.round(G.duration.min * G.fps.max));
});

test('POST /v1/gif: fps, duration, width and height at and just past each edge', async () => {
  const cases: [Record<string, number>, number][] = [
    [{ fps: G.fps.max }, 202],
    [{ fps: G.fps.max + 1 }, 400],
    [{ fps: G.fps.min }, 202],
    [{ fps: G.fps.min - 1 }, 400],
    [{ duration: G.duration.max }, 202],
    [{ duration: G.duration.max + 0.001 }, 400],
    [{ duration: G.duration.min - 0.001 }, 400],
    [{ width: G.width.max }, 202],
    [{ width: G.width.max + 1 }, 400],
    [{ width: G.width.min - 1 }, 400],
    [{ height: G.height.max }, 202],
    [{ height: G.height.max + 1 }, 400],
    [{ height: G.height.min - 1 }, 400],
  ];
  for (const [params, status] of cases) {
    const r = await post(t.app, '/v1/gif', { source: MOVING, params });
    assert.equal(r.statusCode, status, `${JSON.stringify(params)}: ${r.body}`);
    if (status === 400) {
      assert.equal(r.json().code, 'invalid_params');
      continue;
    }
    // accepted is what the edge asks; the render itself is not needed (a 60 s or 1920 px GIF would take long)
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/jobs/${r.json().job_id}` });
    assert.ok(del.statusCode === 200 || del.statusCode === 409, del.body);
  }
  assert.deepEqual(await partials(t.dataDir), [], 'a cancelled GIF leaves neither frames nor palette');
});

test('a GIF whose encoder fails ends in error "GIF encoder failed", with no partial file', async () => {
  const broken = new ChromiumRenderer({
    chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    ffmpegPath: '/bin/false',
    gl: testGl,
    log: silentLog,
  });
  const b = await startApp({ renderer: broken });
  try {
    const r = await runJob(b.app, '/v1/gif', { source: MOVING, params: { fps: 5, duration: 0.4 } });
    assert.equal(r.json().status, 'error', r.body);
    assert.equal(r.json().message, 'render failed: the GIF encoder failed');
    assert.equal(r.json().code, 'encoder_failed');
    assert.deepEqual(await partials(b.dataDir), []);
  } finally {
    await b.close();
  }
});

test('at start the service removes partial files an earlier run left (GIF frames and palette, .tmp)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-partials-'));
  await mkdir(join(dataDir, 'outputs'), { recursive: true });
  const id = '0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90';
  for (const s of ['.gif.frames.deflate', '.gif.palette.png', '.gif.tmp'])
    await writeFile(join(dataDir, 'outputs', id + s), 'left by a crash');
  const b = await startApp({ renderer: new FakeRenderer(), config: { dataDir } });
  try {
    assert.deepEqual(await partials(dataDir), []);
  } finally {
    await b.close();
  }
});
