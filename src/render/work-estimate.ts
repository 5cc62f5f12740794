// How long a job would take on this service, estimated before it is queued (docs/durability.md, "Admission"):
// frames x pixels x the scene's cost class, plus frames x the evaluation of one frame (its steps and value nodes,
// measured on sampled frames), the encoder's share by codec, quality and content (output-cost.ts); and the bytes of
// the output, which admission holds against what the output budget has left. Admission refuses a job whose estimate is over the job limit, and the queue uses it
// to let short jobs go first (with aging, so a long one is not starved).
import type { Value } from '../lang/index.js';
import { prepare, type Plan } from './prepare.js';
import { programKey, type ProgramCache } from './program-cache.js';
import type { RenderJob, WorkEstimate, CostClass } from './renderer-port.js';
import type { VideoCodec } from '../contract/outputs.js';
import { encodeTimeFactor, gifBytes, stillBytes, videoBytes, type Detail } from './output-cost.js';

/** The encoder's cost against x264's at the default quality on a flat picture: codec, then quality and content. */
function encodeFactor(kind: RenderJob['kind'], params: RenderJob['params'], detail: Detail): number {
  return kind === 'video' ? CODEC_ENCODE_FACTOR[params.codec ?? 'h264'] * encodeTimeFactor(params, detail) : 1;
}

/** The output's estimated bytes (output-cost.ts). */
function outputBytes(kind: RenderJob['kind'], params: RenderJob['params'], d: Detail, pixels: number, frames: number) {
  if (kind === 'video') return videoBytes(params, d, pixels, frames);
  if (kind === 'gif') return gifBytes(d, pixels, frames);
  return stillBytes(d, pixels);
}

/**
 * Nanoseconds per pixel of one drawn frame by cost class (draw, read back, move, convert), measured on the
 * reference machine (2 cores, software WebGL): a 3840x2160, 60 fps, 300 s flat scene took about 80 minutes, about
 * 32 ns per pixel-frame in all, of which the encoder takes about 8.
 */
export const DRAW_NS_PER_PIXEL: Record<CostClass, number> = { flat: 24, '3d': 48, raymarch: 120 };
/** ns per pixel of every frame in the encoder (x264 for MP4; the GIF's palette and mapping passes for a GIF) */
export const ENCODE_NS_PER_PIXEL = { frame: 10, video: 8, gif: 20 } as const;
/**
 * A video encoder's cost against x264's, measured by `npm run bench` (1080p, 2 s, the default quality, 2 cores):
 * x265 about 6 times x264's encode time, VP9 about 2.5, SVT-AV1 about 2, ProRes (prores_aw) about 4.
 */
export const CODEC_ENCODE_FACTOR: Record<VideoCodec, number> = { h264: 1, h265: 6, vp9: 3, av1: 2, prores: 4 };
/** what a drawn frame costs whatever its size (the page round trip, evaluation of a small scene) */
export const FRAME_OVERHEAD_S = 0.005;

/**
 * Nanoseconds per evaluation step (EVL006's unit, STEP_BUDGET a frame) and per value node of the result (measured
 * for EVL008, serialised to JSON for the page), measured by `npm run bench:eval-cost` on the 2-core reference
 * machine while the frames were drawn (the evaluating thread shares the cores with Chromium and ffmpeg): a frame
 * of 188,415 steps took about 45 ns a step alone and about 90 while its clip rendered; a 4,096-rect graph's 20,482
 * nodes about 240 ns a node alone.
 */
export const EVAL_NS_PER_STEP = 90;
export const EVAL_NS_PER_NODE = 300;

/** The frames sampled for the evaluation's cost, as fractions of the job's frames (the first is evaluated anyway). */
const SAMPLES = [0.5, 1] as const;

/**
 * One frame's evaluation, the costliest of the sampled ones: the first (prepare() evaluated it), the middle and the
 * last frame of what the job draws. A sample that fails is left out: the job fails there with its own diagnostic.
 */
export function sampleEvaluation(plan: Plan, kind: RenderJob['kind']): { steps: number; nodes: number } {
  let steps = plan.first.steps;
  let nodes = plan.first.nodes;
  if (kind === 'frame' || plan.first.timeFree || plan.frames < 2) return { steps, nodes };
  for (const f of SAMPLES) {
    const i = plan.start + Math.min(plan.frames - 1, Math.floor(f * (plan.frames - 1)));
    const r = plan.program.sceneAt(i / plan.fps);
    if (r.diagnostics.some((d) => d.severity === 'error')) continue;
    steps = Math.max(steps, r.steps);
    nodes = Math.max(nodes, r.nodes);
  }
  return { steps, nodes };
}

/** The scene's cost class: raymarched metaballs, lit 3D, or flat 2D layers (the costliest node present decides). */
export function costClass(value: Value): CostClass {
  let cls: CostClass = 'flat';
  const stack: Value[] = [value];
  while (stack.length) {
    const v = stack.pop()!;
    if (v.kind === 'constructed') {
      if (v.name === 'metaballs') return 'raymarch';
      if (v.name === 'render3d') cls = '3d';
      for (const f of v.fields) stack.push(f.value);
    } else if (v.kind === 'record') for (const f of v.fields) stack.push(f.value);
    else if (v.kind === 'array') for (const e of v.elems) stack.push(e);
  }
  return cls;
}

/**
 * The estimate of a job, or null when it cannot be made (the source does not compile, an image is missing, ...):
 * the job is then queued and fails with its own diagnostic, as before.
 */
export function estimateWork(
  job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets' | 'args'>,
  programs?: ProgramCache,
): WorkEstimate | null {
  const kind = job.kind;
  // a mesh or a vectorize is not drawn by the page: no estimate
  if (kind !== 'frame' && kind !== 'video' && kind !== 'gif') return null;
  let plan;
  try {
    plan = prepare({ ...job, id: 'estimate', outPath: '' }, programs);
  } catch {
    return null;
  }
  const pixels = plan.width * plan.height;
  const cls = costClass(plan.first.value);
  // a frame, or a scene that reads no time signal, is evaluated (and drawn) once
  const drawn = kind === 'frame' || plan.first.timeFree ? 1 : plan.frames;
  let sample;
  try {
    sample = sampleEvaluation(plan, kind);
  } catch {
    return null;
  }
  const evaluateSeconds = drawn * (sample.steps * EVAL_NS_PER_STEP + sample.nodes * EVAL_NS_PER_NODE) * 1e-9;
  // what the encoder sees: the images' detail, the same picture every frame when the scene reads no time signal
  const detail: Detail = { level: plan.assets.detail(plan.first.images), still: drawn === 1 };
  const seconds =
    drawn * (FRAME_OVERHEAD_S + pixels * DRAW_NS_PER_PIXEL[cls] * 1e-9) +
    plan.frames * pixels * ENCODE_NS_PER_PIXEL[kind] * encodeFactor(kind, job.params, detail) * 1e-9 +
    evaluateSeconds;
  return {
    program: programKey(job.source, job.args),
    seconds,
    bytes: outputBytes(kind, job.params, detail, pixels, plan.frames),
    detail: detail.level,
    frames: plan.frames,
    drawnFrames: drawn,
    width: plan.width,
    height: plan.height,
    costClass: cls,
    evaluateSeconds,
    stepsPerFrame: sample.steps,
    ...(plan.warnings.length > 0 ? { warnings: plan.warnings } : {}),
  };
}
