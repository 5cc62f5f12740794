// Node-side preparation of a job before any pixel is drawn: compile once (src/lang), evaluate the first needed time,
// the output size (service.md "Rendering rules"), the frame plan and the asset check (ASS001). Pure: no browser,
// no files.
import { compile, designFrame, formatJobMessage, type Program, type Diagnostic, type Value } from '../lang/index.js';
import { LIMITS } from '../contract/limits.js';
import { JobAssets } from './job-assets.js';
import { JobFailure, type FailureDiagnostic, type RenderJob } from './types.js';

export interface Size {
  width: number;
  height: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * Output size. Both given: exactly that (the viewer fits the design frame inside, centred). Neither: the design
 * frame's own size (scaled down to fit the limits if it is larger). One: the other follows the design frame's
 * aspect, clamped to its limits. Videos round both up to even numbers.
 */
export function outputSize(design: Size, req: { width?: number; height?: number }, video: boolean): Size {
  const W = LIMITS.width;
  const H = LIMITS.height;
  const dw = Number.isFinite(design.width) && design.width > 0 ? design.width : LIMITS.defaultFrame.width;
  const dh = Number.isFinite(design.height) && design.height > 0 ? design.height : LIMITS.defaultFrame.height;
  const aspect = dw / dh;
  let w: number;
  let h: number;
  if (req.width !== undefined && req.height !== undefined) {
    w = req.width;
    h = req.height;
  } else if (req.width !== undefined) {
    w = req.width;
    h = clamp(Math.round(w / aspect), H.min, H.max);
  } else if (req.height !== undefined) {
    h = req.height;
    w = clamp(Math.round(h * aspect), W.min, W.max);
  } else {
    const s = Math.min(1, W.max / dw, H.max / dh);
    w = clamp(Math.round(dw * s), W.min, W.max);
    h = clamp(Math.round(dh * s), H.min, H.max);
  }
  if (video) {
    w += w & 1;
    h += h & 1;
  }
  return { width: w, height: h };
}

function toFailureDiag(d: Diagnostic): FailureDiagnostic {
  const { code, message, line, column, severity, length, expected, actual, help } = d;
  const out: FailureDiagnostic = { code, message, line, column, severity, length, help };
  if (expected !== undefined) out.expected = expected;
  if (actual !== undefined) out.actual = actual;
  return out;
}

/** A compile-stage job failure from diagnostics: the first error decides message and code. */
export function diagnosticsFailure(diags: readonly Diagnostic[]): JobFailure {
  const first = diags.find((d) => d.severity === 'error') ?? diags[0];
  if (!first) return new JobFailure('compile failed', null);
  return new JobFailure(formatJobMessage(first), first.code, diags.map(toFailureDiag));
}

/** A value evaluated at one time, with its JSON text: what the page draws and how repeats are told apart. */
export interface EvaluatedFrame {
  value: Value;
  json: string;
}

/** Evaluates the program at t; an evaluation error fails the job with its diagnostic. */
export function evaluateAt(program: Program, t: number): EvaluatedFrame {
  const r = program.sceneAt(t);
  if (r.diagnostics.some((d) => d.severity === 'error')) throw diagnosticsFailure(r.diagnostics);
  return { value: r.value, json: JSON.stringify(r.value) };
}

export interface Plan {
  program: Program;
  runner: string;
  width: number;
  height: number;
  /** frame: the time of the frame; video: 0 */
  at: number;
  fps: number;
  frames: number;
  duration: number;
  /** the first frame the job draws (at `at` for a frame job, at 0 for a video), already evaluated */
  first: EvaluatedFrame;
  assets: JobAssets;
}

export function prepare(job: RenderJob): Plan {
  const compiled = compile(job.source);
  if (!compiled.ok || !compiled.program) throw diagnosticsFailure(compiled.diagnostics);
  const program = compiled.program;
  const at = job.kind === 'frame' ? (job.params.at ?? 0) : 0;
  const first = evaluateAt(program, at);
  const assets = new JobAssets(job.assets, job.source);
  assets.check(first.value);
  // the design frame (and so the output size) is the scene's at t = 0
  const at0 = at !== 0 ? program.sceneAt(0).value : first.value;
  const size = outputSize(designFrame(at0), job.params, job.kind === 'video');
  const fps = job.params.fps ?? LIMITS.fps.default;
  const duration = job.params.duration ?? program.durationSeconds;
  if (job.kind === 'video' && !(Number.isFinite(duration) && duration <= LIMITS.duration.max)) {
    // params.duration is validated at the door; a scene may still declare an endless duration
    throw new JobFailure(`the scene's duration (${Number.isFinite(duration) ? `${duration} s` : String(duration)}) is over the ${LIMITS.duration.max} s limit of a video; set params.duration`, null);
  }
  const frames = job.kind === 'video' ? Math.max(1, Math.round(duration * fps)) : 1;
  return { program, runner: compiled.runner, ...size, at, fps, frames, duration, first, assets };
}
