// Admission by estimated work, the same in both modes (the embedded JobService and the cluster's API): the renderer's
// estimate of a job (frames x pixels x cost class, plus frames x one frame's evaluation, the encoder's share by codec,
// quality and content; docs/durability.md), and the refusal when it cannot finish inside the job limit; its output's
// estimated bytes against the output budget: over the whole budget a 400 output_too_large (it can never fit), over
// what the budget has left a 503 storage_full (it may fit once outputs expire). No estimate (the source does not
// compile, ...): no refusal, the job fails on its own (and a render that passes the budget stops: run-item.ts).
import type { PreparedJob, Renderer, WorkEstimate } from '../../render/renderer-port.js';
import type { JobKind } from '../../contract/job-kind.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { JobParams } from './store/port.js';
import type { OutputStore } from '../storage/output-store.js';
import type { Refusal } from '../../contract/refusals.js';
import { storageFull } from '../storage/disk-budget.js';

export interface WorkAdmission {
  /** the estimate in seconds, for the queue's order */
  seconds?: number;
  /** the frames the job draws (a video's plan: whether it renders in chunks), so it is not compiled again to know */
  frames?: number;
  /** what the estimate learnt, kept with the job for its renderer (its program's key, frames, size) */
  prepared?: PreparedJob;
  /** the 400 too_much_work message */
  refusal?: string;
  /** the 400 output_too_large message: the output alone would pass the whole output budget */
  tooLarge?: string;
  /** the 503 storage_full refusal: the output would pass what the budget has left now */
  full?: Refusal;
  /** the source's warnings (it renders as written): kept on the job for its ready view */
  warnings?: WorkEstimate['warnings'];
}

type EstimateDeps = { renderer: Renderer; assets: AssetStore };

/**
 * The renderer's estimate of a job; it reads the images' sizes, from local copies where the storage is remote, kept
 * for the job's render (asset-copies.ts).
 */
export async function estimateWork(
  o: EstimateDeps,
  kind: JobKind,
  source: string,
  params: JobParams,
  assets: Record<string, string>,
  args?: Record<string, unknown>,
): Promise<WorkEstimate | null> {
  if (!o.renderer.estimate) return null;
  const held = await o.assets.localFiles(assets);
  try {
    return await o.renderer.estimate({ kind, source, params, assets: held.files, ...(args ? { args } : {}) });
  } finally {
    held.release();
  }
}

export async function admitWork(
  o: EstimateDeps & { jobTimeoutMs: number; outputs: Pick<OutputStore, 'budget'> },
  kind: JobKind,
  source: string,
  params: JobParams,
  assets: Record<string, string>,
  args?: Record<string, unknown>,
): Promise<WorkAdmission> {
  const e = await estimateWork(o, kind, source, params, assets, args);
  if (!e) return {};
  const limit = o.jobTimeoutMs / 1000;
  const budget = o.outputs.budget();
  if (budget && e.bytes > budget.max)
    return {
      seconds: e.seconds,
      frames: e.frames,
      tooLarge: `the output would be about ${mib(e.bytes)} (${e.frames} frame${e.frames === 1 ? '' : 's'} of ${e.width}x${e.height}${detailNote(e.detail)}), over the whole output budget of ${mib(budget.max)} (OUTPUT_MAX_BYTES); ask for fewer frames or pixels, a lower quality or another codec`,
    };
  if (budget && e.bytes > budget.left) {
    const full = storageFull(budget.max - budget.left, budget.max);
    return {
      seconds: e.seconds,
      frames: e.frames,
      full: {
        ...full,
        error: `the output would be about ${mib(e.bytes)}, over the ${mib(budget.left)} the output budget has left; ${full.error}`,
      },
    };
  }
  if (e.seconds <= limit)
    return {
      seconds: e.seconds,
      frames: e.frames,
      prepared: { program: e.program, frames: e.frames, width: e.width, height: e.height },
      ...(e.warnings ? { warnings: e.warnings } : {}),
    };
  const what =
    `${e.frames} frame${e.frames === 1 ? '' : 's'} of ${e.width}x${e.height} (${e.drawnFrames} drawn), a ${e.costClass} scene, ` +
    `of which about ${Math.ceil(e.evaluateSeconds)} s evaluating the scene (${e.stepsPerFrame} steps a frame)${detailNote(e.detail)}`;
  return {
    seconds: e.seconds,
    frames: e.frames,
    refusal: `the job needs about ${Math.ceil(e.seconds)} s of rendering on this service (${what}), over the job limit of ${limit} s (JOB_TIMEOUT_MS); ask for fewer frames (fps, duration), fewer pixels, a lower quality or a scene that does less work a frame`,
  };
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** Says the pictures' detail when it weighs on the estimate. */
const detailNote = (detail: number): string =>
  detail >= 0.05 ? `, images of detail ${detail.toFixed(2)} of 1 (a noise image is 1)` : '';
