// An export in the browser, from the request to the file: the plan by the service's rules (export-plan.ts), the
// export's own drawer (export-frames.ts), then the format's encoder (export-video.ts, export-gif.ts, export-png.ts).
// No request reaches the service (only an uploaded image the scene uses is fetched, as the preview fetches it).
// One export runs at a time: they share the drawer.
import type { Program } from '../../src/lang/index.js';
import { planExport, type ExportPlan, type ExportRequest } from './export-plan.js';
import { ExportFrames } from './export-frames.js';
import { encodeVideo } from './export-video.js';
import { encodeGif } from './export-gif.js';
import { encodePng } from './export-png.js';
import type { Destination, ExportResult } from './export-types.js';

export interface ExportProgress {
  /** frames done (a GIF's two passes count each frame twice) */
  done: number;
  total: number;
  /** seconds left, from the pace so far (null before the first frame) */
  etaSeconds: number | null;
}

export interface ExportRun {
  program: Program;
  request: ExportRequest;
  /** in-source image path -> asset key (the uploads the source names) */
  assets: Record<string, string>;
  dest: Destination;
  signal: AbortSignal;
  onPlan?: (plan: ExportPlan) => void;
  onProgress?: (p: ExportProgress) => void;
}

/** How many steps an export of `plan` reports. */
export const stepsOf = (plan: ExportPlan) => (plan.format === 'gif' ? 2 * plan.frames : plan.frames);

let running: Promise<unknown> = Promise.resolve();

/** Runs one export after any running one has ended. The signal stops it at the next frame. */
export function runExport(run: ExportRun): Promise<ExportResult> {
  const next = running.catch(() => {}).then(() => exportNow(run));
  running = next;
  return next;
}

async function exportNow(run: ExportRun): Promise<ExportResult> {
  const { signal, dest } = run;
  try {
    signal.throwIfAborted();
    const plan = planExport(run.program, run.request);
    run.onPlan?.(plan);
    const total = stepsOf(plan);
    const started = performance.now();
    const step = (done: number) => {
      const spent = (performance.now() - started) / 1000;
      run.onProgress?.({ done, total, etaSeconds: done > 0 ? (spent / done) * (total - done) : null });
    };
    step(0);
    const frames = await ExportFrames.open(run.program, plan, run.assets);
    signal.throwIfAborted();
    const result =
      plan.format === 'gif'
        ? await encodeGif(plan, frames, dest, step, signal)
        : plan.format === 'png'
          ? await encodePng(plan, frames, dest, step)
          : await encodeVideo(plan, frames, dest, step, signal);
    signal.throwIfAborted();
    // a video's muxer holds the stream and closes it itself when it finalizes
    if (dest.kind === 'file' && !dest.writable.locked) await dest.writable.close();
    return result;
  } catch (e) {
    // the picked file keeps its old bytes: an aborted file stream writes nothing (a muxer's cancel ends its own)
    if (dest.kind === 'file' && !dest.writable.locked) await dest.writable.abort().catch(() => {});
    throw e;
  }
}
