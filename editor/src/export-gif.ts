// GIF in the browser with gifenc: one palette for the whole clip, as the service builds it (ffmpeg's palettegen with
// stats_mode=full: every frame's colours count, a colour shown longer weighs more), then every frame mapped to it.
// Pass 1 draws every frame and keeps an even sample of its pixels (bounded, whatever the clip's length); pass 2
// draws every frame again and writes it, so no more than one frame is held at a time. Delays are laid end to end in
// centiseconds (GIF's unit) so the clip lasts round(frames x 100 / fps) cs; gifenc takes them in milliseconds.
import { GIFEncoder, applyPalette, quantize } from 'gifenc';
import type { ExportPlan } from './export-plan.js';
import type { ExportFrames } from './export-frames.js';
import type { Destination, ExportResult, Step } from './export-types.js';

/** Pixels the palette is built from, over the whole clip (4 MiB of RGBA). */
const SAMPLE_PIXELS = 1 << 20;
/** GIF_COLORS.default of src/contract/outputs.ts */
const COLORS = 256;

/** Frame i's delay in centiseconds: the clip's times rounded to GIF's unit, laid end to end. */
export function gifDelayCs(i: number, fps: number): number {
  return Math.round(((i + 1) * 100) / fps) - Math.round((i * 100) / fps);
}

export async function encodeGif(
  plan: ExportPlan,
  frames: ExportFrames,
  dest: Destination,
  step: Step,
  signal: AbortSignal,
): Promise<ExportResult> {
  const { width, height, fps } = plan;
  const pixels = width * height;
  // every stride-th pixel of each frame, starting one further each frame, so the sample covers the picture evenly
  const stride = Math.max(1, Math.ceil((plan.frames * pixels) / SAMPLE_PIXELS));
  const perFrame = Math.ceil(pixels / stride);
  const sample = new Uint8Array(Math.min(plan.frames * perFrame, SAMPLE_PIXELS + perFrame) * 4);
  let n = 0;
  for (let i = 0; i < plan.frames; i++) {
    if (signal.aborted) throw signal.reason;
    await frames.drawAt(i / fps);
    const rgba = frames.rgba();
    for (let p = i % stride; p < pixels && n * 4 < sample.length; p += stride, n++)
      sample.set(rgba.subarray(p * 4, p * 4 + 4), n * 4);
    step(i + 1);
  }
  const palette = quantize(sample.subarray(0, n * 4), COLORS);

  const chunks: Uint8Array[] = [];
  const out = async (bytes: Uint8Array) => {
    // gifenc reuses its buffer after reset(): hand on a copy
    const copy = bytes.slice();
    if (dest.kind === 'file') await dest.writable.write(copy);
    else chunks.push(copy);
  };
  const gif = GIFEncoder({ auto: false });
  gif.writeHeader();
  for (let i = 0; i < plan.frames; i++) {
    if (signal.aborted) throw signal.reason;
    await frames.drawAt(i / fps);
    const index = applyPalette(frames.rgba(), palette);
    // the palette goes with the first frame only, as the global table every frame uses
    const first = i === 0;
    gif.writeFrame(index, width, height, {
      palette: first ? palette : undefined,
      first,
      repeat: 0,
      delay: gifDelayCs(i, fps) * 10,
    });
    await out(gif.bytesView());
    gif.reset();
    step(plan.frames + i + 1);
  }
  gif.finish();
  await out(gif.bytesView());
  return { bytes: dest.kind === 'file' ? null : concat(chunks), type: 'image/gif', extension: 'gif' };
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}
