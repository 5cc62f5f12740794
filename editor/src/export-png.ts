// PNG in the browser: the frame at `at`, drawn at the output size by the export's drawer, encoded lossless by the
// browser's own PNG encoder (a 2D canvas holding exactly the drawer's RGBA; the frame is opaque, so no
// premultiplication can change a colour).
import type { ExportPlan } from './export-plan.js';
import type { ExportFrames } from './export-frames.js';
import type { Destination, ExportResult, Step } from './export-types.js';

export async function encodePng(
  plan: ExportPlan,
  frames: ExportFrames,
  dest: Destination,
  step: Step,
): Promise<ExportResult> {
  await frames.drawAt(plan.at);
  const canvas = new OffscreenCanvas(plan.width, plan.height);
  const ctx = canvas.getContext('2d')!;
  ctx.putImageData(new ImageData(new Uint8ClampedArray(frames.rgba()), plan.width, plan.height), 0, 0);
  const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
  step(1);
  if (dest.kind === 'file') {
    await dest.writable.write(bytes);
    return { bytes: null, type: 'image/png', extension: 'png' };
  }
  return { bytes, type: 'image/png', extension: 'png' };
}
