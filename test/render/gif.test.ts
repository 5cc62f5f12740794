// GIF through the real ChromiumRenderer (software WebGL, the built viewer, ffmpeg): frame count, the endless loop,
// each GIF frame against the PNG frame of the same time, same bytes twice, abort cleanup, and the GIF limits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { realRenderer } from '../helpers/app.js';
import { decodeFrames, psnr } from '../helpers/video.js';
import { probe } from '../../src/render/ffmpeg/probe.js';
import { prepare } from '../../src/render/prepare.js';
import { Aborted } from '../../src/render/frame-sequence.js';
import { GIF_PASS1_SHARE } from '../../src/render/gif-encoder.js';
import { JobFailure, type RenderJob, type RenderParams } from '../../src/render/renderer-port.js';
import type { ChromiumRenderer } from '../../src/render/chromium-renderer.js';

// A 3D scene: an extruded glyph turning under two lights (smooth shading: many colours for one palette).
const SPIN = `runner "0.0.3";
use std.shapes.*;
use std.mesh3d.*;
use std.text;
use std.lighting.*;
use std.scene3d.*;
use std.anim.*;
scene spin(duration: Duration = 1s) -> Frame {
  let bg = rect(width: 1920px, height: 1080px, fill: #101830);
  let rot = animate { 0s => -30deg, 1s => 60deg };
  let glyph = extrude(text.glyph("G", font: "Inter Bold"), depth: 24px)
                .material(fill: oklch(0.75, 0.15, 70), metalness: 0.2, roughness: 0.4)
                .rotate(x: 15deg, y: rot);
  compose [bg, render3d(glyph, lights: [ambient(0.4), directional(from: vec3(2, 3, 4), intensity: 1.5)])]
}
`;
// A 2D scene: flat rectangles sliding across each other.
const SLIDE = `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene slide(duration: Duration = 1s) -> Frame {
  let x = animate { 0s => -600px, 1s => 600px };
  let y = animate { 0s => 200px, 1s => -200px };
  let bg = rect(width: 1920px, height: 1080px, fill: #f4efe6);
  let a = rect(width: 320px, height: 320px, fill: #ff3399).translate(x: x);
  let b = rect(width: 1920px, height: 160px, fill: #2a6f97).translate(y: y);
  let c = rect(width: 200px, height: 600px, fill: #e9c46a).translate(x: 500px);
  compose [bg, b, c, a]
}
`;
// A square design frame that declares more than a GIF may last.
const SQUARE_FRAME = `runner "0.0.3";\nuse std.shapes.*;\nscene sq(duration: Duration = 61s) -> Frame {\n  let bg = rect(width: 1080px, height: 1080px, fill: #204060);\n  let fg = rect(width: 300px, height: 300px, fill: #ff3399);\n  compose [bg, fg]\n}\n`;

let renderer: ChromiumRenderer;
let dir: string;
before(async () => {
  renderer = realRenderer();
  await renderer.start();
  dir = mkdtempSync(join(tmpdir(), 'cmrender-gif-'));
});
after(async () => {
  await renderer.close();
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
function job(kind: RenderJob['kind'], source: string, params: RenderParams, outDir = dir): RenderJob {
  const n = ++seq;
  return {
    id: `gif-test-${n}`,
    kind,
    source,
    params,
    assets: {},
    outPath: join(outDir, `out-${n}.${kind === 'frame' ? 'png' : kind === 'gif' ? 'gif' : 'mp4'}`),
  };
}
const render = (j: RenderJob, onProgress?: (p: number) => void, signal = new AbortController().signal) =>
  renderer.render(j, { signal, onProgress });

/** The application extension that makes a GIF loop: NETSCAPE2.0, sub-block 1, loop count (0 = for ever). */
function loopCount(gif: Buffer): number | null {
  const at = gif.indexOf(Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1')]));
  if (at < 0) return null;
  const b = at + 14;
  assert.deepEqual([gif[b], gif[b + 1]], [3, 1], 'the loop sub-block: 3 bytes, id 1');
  return gif.readUInt16LE(b + 2);
}

for (const [name, source] of [
  ['3D (extruded glyph)', SPIN],
  ['2D (sliding rectangles)', SLIDE],
] as const) {
  test(`${name}: round(duration × fps) frames, loops for ever, every frame within 30 dB of the PNG of its time`, async (t) => {
    const fps = 10;
    const duration = 1;
    const progress: number[] = [];
    const g = job('gif', source, { fps, duration });
    const out = await render(g, (p) => progress.push(p));
    assert.deepEqual([out.width, out.height], [480, 270], 'default 480 wide, height by the 16:9 design frame');
    const bytes = readFileSync(g.outPath);
    assert.equal(bytes.toString('latin1', 0, 6), 'GIF89a');
    assert.equal(loopCount(bytes), 0, 'NETSCAPE2.0 loop count 0: endless');
    const p = await probe(g.outPath);
    assert.equal(p.codec, 'gif');
    assert.deepEqual([p.width, p.height, p.frames], [480, 270, Math.round(duration * fps)]);
    assert.ok(
      progress.length > 0 && progress.every((v, i) => i === 0 || v >= progress[i - 1]!),
      'progress only goes forward',
    );
    assert.equal(progress.at(-1), 1);

    const frames = decodeFrames(g.outPath, 480, 270);
    assert.equal(frames.length, 10);
    const scores: number[] = [];
    for (let i = 0; i < frames.length; i++) {
      const f = job('frame', source, { at: i / fps, width: 480, height: 270 });
      await render(f);
      scores.push(psnr(frames[i]!, PNG.sync.read(readFileSync(f.outPath))));
    }
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    t.diagnostic(`mean PSNR ${mean.toFixed(1)} dB`);
    assert.ok(mean >= 30, `mean PSNR ${mean.toFixed(1)} dB (per frame ${scores.map((s) => s.toFixed(1)).join(', ')})`);
  });
}

test('the same GIF twice: the same bytes', async () => {
  const a = job('gif', SPIN, { fps: 5, duration: 1, width: 160 });
  const b = job('gif', SPIN, { fps: 5, duration: 1, width: 160 });
  await render(a);
  await render(b);
  assert.ok(readFileSync(a.outPath).equals(readFileSync(b.outPath)));
});

test('aborting a GIF while drawing or while encoding leaves no file behind', async () => {
  for (const [when, at] of [
    ['drawing (pass 1)', 0.2],
    ['encoding (pass 2)', GIF_PASS1_SHARE + 0.01],
  ] as const) {
    const own = mkdtempSync(join(dir, 'abort-'));
    const ctl = new AbortController();
    const j = job('gif', SLIDE, { fps: 30, duration: 2 }, own);
    await assert.rejects(
      render(j, (p) => p >= at && ctl.abort(), ctl.signal),
      (e) => e instanceof Aborted,
      `aborted while ${when}`,
    );
    assert.deepEqual(readdirSync(own), [], `nothing left after an abort while ${when}`);
  }
  // and the renderer still works afterwards
  const ok = job('gif', SLIDE, { fps: 2, duration: 0.5 });
  await render(ok);
  assert.equal((await probe(ok.outPath)).frames, 1);
});

test('GIF limits: at the edge accepted, just past it refused, where the renderer sees them', () => {
  const plan = (params: RenderParams, source = SLIDE) => prepare(job('gif', source, params));
  const refused = (params: RenderParams, what: RegExp, source = SLIDE) =>
    assert.throws(
      () => plan(params, source),
      (e: unknown) => e instanceof JobFailure && e.code === 'invalid_params' && what.test(e.message),
      JSON.stringify(params),
    );
  assert.equal(plan({ fps: 30, duration: 1 }).frames, 30);
  assert.equal(plan({ fps: 1, duration: 1 }).frames, 1);
  refused({ fps: 31 }, /fps 31 is outside 1\.\.30/);
  refused({ fps: 0 }, /fps 0 is outside/);
  assert.equal(plan({ duration: 60 }).frames, 900, '60 s at the default 15 fps');
  assert.equal(plan({ duration: 0.1, fps: 10 }).frames, 1);
  refused({ duration: 60.01 }, /duration 60\.01 is outside 0\.1\.\.60/);
  refused({ duration: 0.09 }, /duration 0\.09 is outside/);
  assert.equal(plan({ width: 1920 }).width, 1920);
  assert.equal(plan({ height: 1920, width: 16 }).height, 1920);
  assert.equal(plan({ width: 16 }).width, 16);
  refused({ width: 1921 }, /width 1921 is outside 16\.\.1920/);
  refused({ height: 1921 }, /height 1921 is outside 16\.\.1920/);
  refused({ width: 15 }, /width 15 is outside/);
  refused({ height: 15 }, /height 15 is outside/);
  // defaults: 480 wide, the height by the scene's aspect, 15 fps; odd sizes are kept (a GIF has no chroma planes)
  const d = plan({ duration: 1 });
  assert.deepEqual([d.width, d.height, d.fps], [480, 270, 15]);
  assert.deepEqual([plan({ duration: 1 }, SQUARE_FRAME).width, plan({ duration: 1 }, SQUARE_FRAME).height], [480, 480]);
  assert.deepEqual([plan({ height: 101 }).width, plan({ height: 101 }).height], [180, 101]);
  // a scene that declares more than 60 s needs params.duration
  refused({}, /over the 60 s limit of a GIF/, SQUARE_FRAME);
  assert.equal(plan({ duration: 2, fps: 1 }, SQUARE_FRAME).frames, 2);
});
