// Admission by estimated work, the same in both modes (the embedded JobService and the cluster's API): the renderer's
// estimate of a job (frames x pixels x cost class, plus frames x one frame's evaluation; docs/durability.md), and the refusal when it cannot finish inside
// the job limit. No estimate (the source does not compile, ...): no refusal, the job fails on its own.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Renderer, WorkEstimate } from '../../render/renderer-port.js';
import type { JobKind } from '../http/schemas/jobs.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { JobParams } from './store.js';

export interface WorkAdmission {
  /** the estimate in seconds, for the queue's order */
  seconds?: number;
  /** the frames the job draws (a video's plan: whether it renders in chunks), so it is not compiled again to know */
  frames?: number;
  /** the 400 too_much_work message */
  refusal?: string;
}

type EstimateDeps = { renderer: Renderer; assets: AssetStore; scratchDir: string };

/** The renderer's estimate of a job; it reads the images' sizes: local copies where the storage is remote, gone after. */
export async function estimateWork(
  o: EstimateDeps,
  kind: JobKind,
  source: string,
  params: JobParams,
  assets: Record<string, string>,
): Promise<WorkEstimate | null> {
  if (!o.renderer.estimate) return null;
  const dir = join(o.scratchDir, `estimate-${randomUUID()}`);
  try {
    const files = await o.assets.localFiles(assets, dir);
    return await o.renderer.estimate({ kind, source, params, assets: files });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function admitWork(
  o: EstimateDeps & { jobTimeoutMs: number },
  kind: JobKind,
  source: string,
  params: JobParams,
  assets: Record<string, string>,
): Promise<WorkAdmission> {
  const e = await estimateWork(o, kind, source, params, assets);
  if (!e) return {};
  const limit = o.jobTimeoutMs / 1000;
  if (e.seconds <= limit) return { seconds: e.seconds, frames: e.frames };
  const what =
    `${e.frames} frame${e.frames === 1 ? '' : 's'} of ${e.width}x${e.height} (${e.drawnFrames} drawn), a ${e.costClass} scene, ` +
    `of which about ${Math.ceil(e.evaluateSeconds)} s evaluating the scene (${e.stepsPerFrame} steps a frame)`;
  return {
    seconds: e.seconds,
    frames: e.frames,
    refusal: `the job needs about ${Math.ceil(e.seconds)} s of rendering on this service (${what}), over the job limit of ${limit} s (JOB_TIMEOUT_MS); ask for fewer frames (fps, duration), fewer pixels or a scene that does less work a frame`,
  };
}
