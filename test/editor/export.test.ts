// The editor's export in the browser (issue 35), in the real Chromium against the real service: MP4, WebM, GIF and
// PNG made by window.cmEditor.export (the buttons' path) from the homepage example, checked with ffprobe (codec,
// size, frame count, duration, timestamps or GIF delays), frame 45 against the service's /v1/frame at 1.5 s, and the
// same export once the service has stopped. The Export buttons' progress, result and Cancel as a person sees them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { ownExample } from '../helpers/app.js';
import { runJob } from '../helpers/job-client.js';
import { decodeFrames, psnr } from '../helpers/video.js';
import { openEditor, closeEditor, setSource, startRig, WAIT_MS, type EditorRig } from './helpers.js';

const LIMIT = { timeout: 300_000 };
/** small enough to stay cheap under a software GL on a loaded machine */
const W = 320;
const H = 180;
const FPS = 30;
const DURATION = 2;
const FRAMES = Math.round(DURATION * FPS);
const SOURCE = ownExample('wave.cm');

let rig: EditorRig;
let page: Page;
let work: string;
/** the service's frame at 1.5 s (frame 45 of the clip) at the export's size */
let serviceFrame: PNG;
let serviceStopped = false;

before(async () => {
  rig = await startRig();
  work = mkdtempSync(join(tmpdir(), 'cm-export-'));
  page = await openEditor(rig);
  await setSource(page, SOURCE);
  const done = (
    await runJob(rig.t.app, '/v1/frame', { source: SOURCE, params: { width: W, height: H, at: 45 / FPS } })
  ).json();
  assert.equal(done.status, 'ready', JSON.stringify(done));
  serviceFrame = PNG.sync.read((await rig.t.app.inject({ url: done.url })).rawPayload);
}, LIMIT);
after(async () => {
  await rig?.browser.close();
  if (!serviceStopped) await rig?.t.close();
  if (work) rmSync(work, { recursive: true, force: true });
}, LIMIT);

interface Exported {
  file: string;
  type: string;
  codec?: string;
  bytes: Buffer;
}

async function exportIn(format: string, extra: Record<string, number> = {}): Promise<Exported> {
  const r = await page.evaluate(
    async (req) => {
      const x = await window.cmEditor.export(req as Parameters<typeof window.cmEditor.export>[0]);
      let s = '';
      for (let i = 0; i < x.bytes.length; i += 0x8000) s += String.fromCharCode(...x.bytes.subarray(i, i + 0x8000));
      return { b64: btoa(s), type: x.type, codec: x.codec };
    },
    { format, width: W, height: H, fps: FPS, duration: DURATION, ...extra },
  );
  const bytes = Buffer.from(r.b64, 'base64');
  const file = join(work, `export-${Math.random().toString(36).slice(2)}.${format}`);
  writeFileSync(file, bytes);
  return { file, type: r.type, codec: r.codec, bytes };
}

interface Probe {
  codec: string;
  width: number;
  height: number;
  frames: number;
  duration: number;
  colorSpace?: string;
  colorPrimaries?: string;
  colorTransfer?: string;
  colorRange?: string;
  /** packets by presentation time: their times and durations in seconds */
  packets: { pts: number; duration: number }[];
}

function probe(file: string): Probe {
  const r = spawnSync(
    'ffprobe',
    [
      ...['-v', 'error', '-select_streams', 'v:0', '-count_frames', '-of', 'json'],
      ...[
        '-show_entries',
        'stream=codec_name,width,height,nb_read_frames,color_space,color_primaries,color_transfer,color_range',
      ],
      ...['-show_entries', 'format=duration', '-show_entries', 'packet=pts_time,duration_time'],
      file,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  const s = j.streams[0];
  return {
    codec: s.codec_name,
    width: s.width,
    height: s.height,
    frames: Number(s.nb_read_frames),
    duration: Number(j.format.duration),
    colorSpace: s.color_space,
    colorPrimaries: s.color_primaries,
    colorTransfer: s.color_transfer,
    colorRange: s.color_range,
    packets: (j.packets as { pts_time: string; duration_time?: string }[])
      .map((p) => ({ pts: Number(p.pts_time), duration: Number(p.duration_time) }))
      .sort((a, b) => a.pts - b.pts),
  };
}

/** Frame k of the export against the service's frame at the same time. */
function frameDb(file: string, k: number): number {
  const frames = decodeFrames(file, W, H);
  assert.equal(frames.length, FRAMES);
  return psnr(frames[k]!, serviceFrame);
}

/** A video's facts: codec, size, frames, duration, packet k at k / fps, the service's BT.709 tags. */
function assertVideo(p: Probe, codec: string, tolerance: number): void {
  assert.equal(p.codec, codec);
  assert.deepEqual([p.width, p.height], [W, H]);
  assert.equal(p.frames, FRAMES);
  assert.ok(Math.abs(p.duration - DURATION) <= tolerance, `duration ${p.duration}`);
  assert.equal(p.packets.length, FRAMES);
  p.packets.forEach((x, k) => assert.ok(Math.abs(x.pts - k / FPS) <= tolerance, `packet ${k} at ${x.pts}`));
  assert.deepEqual(
    [p.colorSpace, p.colorPrimaries, p.colorTransfer, p.colorRange],
    ['bt709', 'bt709', 'bt709', 'tv'],
    'the service tags of src/render/ffmpeg/codecs.ts',
  );
}

test(
  'WebM: VP9, 60 frames of 2 s at k/30 s, BT.709 tags, frame 45 within 40 dB of /v1/frame at 1.5 s',
  LIMIT,
  async (t) => {
    const started = Date.now();
    const x = await exportIn('webm');
    t.diagnostic(`webm ${W}x${H} ${FRAMES} frames in ${Date.now() - started} ms, ${x.bytes.length} bytes`);
    assert.equal(x.codec, 'vp9');
    assert.match(x.type, /^video\/webm/);
    // WebM counts time in milliseconds
    assertVideo(probe(x.file), 'vp9', 0.0011);
    const db = frameDb(x.file, 45);
    t.diagnostic(`frame 45: ${db.toFixed(1)} dB`);
    assert.ok(db >= 40, `frame 45 is ${db.toFixed(1)} dB from the service's frame at 1.5 s`);
  },
);

test('MP4: H.264 where this browser can encode it (else AV1), the same facts and frame 45', LIMIT, async (t) => {
  const h264 = await page.evaluate(async () => {
    const r = await VideoEncoder.isConfigSupported({ codec: 'avc1.42001f', width: 320, height: 180 }).catch(() => null);
    return r?.supported === true;
  });
  const x = await exportIn('mp4');
  t.diagnostic(`H.264 encodable here: ${h264}; codec used: ${x.codec}`);
  assert.equal(x.codec, h264 ? 'avc' : 'av1');
  assert.match(x.type, /^video\/mp4/);
  assertVideo(probe(x.file), h264 ? 'h264' : 'av1', 1e-6);
  const db = frameDb(x.file, 45);
  t.diagnostic(`frame 45: ${db.toFixed(1)} dB`);
  assert.ok(db >= 40, `frame 45 is ${db.toFixed(1)} dB`);
});

test(
  'GIF: 60 frames whose delays, in centiseconds, lay the 2 s end to end; frame 45 within 40 dB',
  LIMIT,
  async (t) => {
    const x = await exportIn('gif');
    assert.equal(x.type, 'image/gif');
    assert.equal(x.bytes.toString('latin1', 0, 6), 'GIF89a');
    const p = probe(x.file);
    assert.equal(p.codec, 'gif');
    assert.deepEqual([p.width, p.height], [W, H]);
    assert.equal(p.frames, FRAMES);
    // at 30 fps a frame lasts 3 or 4 cs: round((k+1)·100/30) − round(k·100/30)
    const cs = p.packets.map((q) => Math.round(q.duration * 100));
    assert.deepEqual(
      cs,
      Array.from({ length: FRAMES }, (_, k) => Math.round(((k + 1) * 100) / FPS) - Math.round((k * 100) / FPS)),
    );
    assert.equal(
      cs.reduce((a, b) => a + b, 0),
      DURATION * 100,
    );
    // one palette for the clip: a global colour table and no local one (the image descriptors' flag bit 7 unset)
    assert.equal(x.bytes[10]! & 0x80, 0x80, 'a global colour table');
    const db = frameDb(x.file, 45);
    t.diagnostic(`frame 45: ${db.toFixed(1)} dB`);
    assert.ok(db >= 40, `frame 45 is ${db.toFixed(1)} dB`);
  },
);

test('PNG: the frame at 1.5 s at the asked size, within 40 dB of /v1/frame', LIMIT, async (t) => {
  const x = await exportIn('png', { at: 45 / FPS });
  assert.equal(x.type, 'image/png');
  const png = PNG.sync.read(x.bytes);
  assert.deepEqual([png.width, png.height], [W, H]);
  const rgb = Buffer.alloc(W * H * 3);
  for (let p = 0; p < W * H; p++) png.data.copy(rgb, p * 3, p * 4, p * 4 + 3);
  const db = psnr(rgb, serviceFrame);
  t.diagnostic(`PNG: ${db.toFixed(1)} dB`);
  assert.ok(db >= 40, `${db.toFixed(1)} dB`);
});

test('a bad request is refused in words, and the next export still runs', LIMIT, async () => {
  const err = await page.evaluate(() =>
    window.cmEditor.export({ format: 'webm', width: 99999 }).then(
      () => 'resolved',
      (e: Error) => e.message,
    ),
  );
  assert.match(err, /width 99999 is outside 16\.\.3840/);
  const x = await exportIn('png', { at: 0 });
  assert.equal(x.type, 'image/png');
});

/** Stands in for the user's choice in the save dialog: the file they pick is one of the origin's private files. */
async function pickPrivateFiles(p: Page): Promise<void> {
  await p.evaluate(() => {
    (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = async (o: { suggestedName: string }) =>
      (await navigator.storage.getDirectory()).getFileHandle(o.suggestedName, { create: true });
  });
}

async function privateFile(p: Page, name: string): Promise<Buffer> {
  const b64 = await p.evaluate(async (n) => {
    const f = await (await (await navigator.storage.getDirectory()).getFileHandle(n)).getFile();
    const bytes = new Uint8Array(await f.arrayBuffer());
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  }, name);
  return Buffer.from(b64, 'base64');
}

const statusText = () => document.getElementById('export-status')!.textContent ?? '';

/** Waits until the export's status line matches `re`; a timeout says what it showed instead. */
async function statusMatches(re: RegExp): Promise<void> {
  await page
    .waitForFunction(
      (src) => new RegExp(src).test(document.getElementById('export-status')!.textContent ?? ''),
      re.source,
      {
        timeout: WAIT_MS,
      },
    )
    .catch(async (e: Error) => {
      throw new Error(
        `the export status is ${JSON.stringify(await page.evaluate(statusText))}, not ${re}: ${e.message}`,
      );
    });
}

test(
  'the Export WebM button streams into the file picked in the save dialog, with frames done and an estimate',
  LIMIT,
  async () => {
    await pickPrivateFiles(page);
    await page.locator('#width').fill(String(W));
    await page.locator('#height').fill(String(H));
    await page.locator('#fps').fill(String(FPS));
    await page.locator('#duration').fill('1');
    await page.locator('[data-testid="export-webm"]').click();
    await statusMatches(/^WebM: frame [1-9]\d* of 30 · about \d+ s left$/);
    await statusMatches(/^WebM: saved in [\d.]+ s \(vp9\)$/);
    const file = join(work, 'picked.webm');
    writeFileSync(file, await privateFile(page, 'waves.webm')); // named after the scene, `scene waves`
    const p = probe(file);
    assert.equal(p.codec, 'vp9');
    assert.equal(p.frames, FPS);
    assert.deepEqual([p.width, p.height], [W, H]);
  },
);

test(
  'a save dialog that fails (dismissed, or unable to open) still exports: shown and offered as a download',
  LIMIT,
  async () => {
    await page.evaluate(() => {
      (window as unknown as { showSaveFilePicker: unknown }).showSaveFilePicker = () =>
        Promise.reject(new DOMException('The user aborted a request.', 'AbortError'));
    });
    await page.locator('#duration').fill('1');
    await page.locator('[data-testid="export-png"]').click();
    await statusMatches(/^PNG: done in/);
    assert.match((await page.locator('[data-testid="result"] img').getAttribute('src')) ?? '', /^blob:/);
    const link = page.locator('[data-testid="result"] a');
    assert.equal(await link.textContent(), 'Save waves.png');
    const [saved] = await Promise.all([page.waitForEvent('download', { timeout: WAIT_MS }), link.click()]);
    assert.equal(saved.suggestedFilename(), 'waves.png');
  },
);

test(
  'without a save dialog the export is shown and offered for saving; Cancel stops a long one at once',
  LIMIT,
  async () => {
    await page.evaluate(() => delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker);
    await page.locator('#duration').fill('1');
    await page.locator('[data-testid="export-gif"]').click();
    await statusMatches(/^GIF: done in/);
    assert.match((await page.locator('[data-testid="result"] img').getAttribute('src')) ?? '', /^blob:/);
    assert.equal(await page.locator('[data-testid="result"] a').textContent(), 'Save waves.gif');

    // a 60 s clip: cancelled after its first frames, it says so at once and the Cancel button goes
    await page.locator('#duration').fill('60');
    await page.locator('[data-testid="export-webm"]').click();
    await statusMatches(/^WebM: frame [1-9]\d* of 1800/);
    await page.locator('[data-testid="export-cancel"]').click();
    assert.equal(await page.evaluate(statusText), 'WebM: cancelled');
    assert.equal(await page.locator('[data-testid="export-cancel"]').isHidden(), true);
    // the drawer is free again: the next export runs to its end
    const x = await exportIn('png', { at: 0 });
    assert.equal(x.type, 'image/png');
  },
);

test('a browser without WebCodecs says so and offers the server render, which renders the MP4', LIMIT, async () => {
  const other = await openEditor(rig);
  await other.evaluate(() => {
    delete (window as unknown as { VideoEncoder?: unknown }).VideoEncoder;
  });
  await setSource(other, SOURCE);
  const err = await other.evaluate(() =>
    window.cmEditor.export({ format: 'mp4', width: 320, height: 180, fps: 10, duration: 1 }).then(
      () => 'resolved',
      (e: Error) => e.message,
    ),
  );
  assert.equal(err, 'this browser has no video encoder (WebCodecs): use the server render');
  await other.locator('#width').fill(String(W));
  await other.locator('#height').fill(String(H));
  await other.locator('#fps').fill('10');
  await other.locator('#duration').fill('1');
  await other.locator('[data-testid="export-mp4"]').click();
  const offer = other.locator('[data-testid="export-status"] button');
  await offer.waitFor({ timeout: WAIT_MS });
  assert.match((await other.locator('[data-testid="export-status"]').textContent()) ?? '', /cannot encode MP4/);
  assert.equal(await offer.textContent(), 'Render MP4 on the server');
  await offer.click();
  const video = other.locator('[data-testid="result"] video');
  await video.waitFor({ timeout: 120_000 });
  assert.match((await video.getAttribute('src')) ?? '', /^\/v1\/outputs\/[0-9a-f-]+\.mp4$/);
  await closeEditor(rig, other);
});

test('with the service stopped, the same WebM export still succeeds', LIMIT, async () => {
  serviceStopped = true;
  await rig.t.close();
  const down = await page.evaluate(() =>
    fetch('/v1/health').then(
      (r) => r.status,
      () => 'unreachable',
    ),
  );
  assert.equal(down, 'unreachable');
  const x = await exportIn('webm');
  const p = probe(x.file);
  assert.equal(p.codec, 'vp9');
  assert.equal(p.frames, FRAMES);
  assert.ok(frameDb(x.file, 45) >= 40);
});
