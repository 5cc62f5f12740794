// Node-side preparation of a job before any pixel is drawn: compile once (src/lang), evaluate the first needed time,
// the output size (service.md "Rendering rules"), the frame plan and the asset check (ASS001). Pure: no browser,
// no files.
import {
  compile,
  designFrame,
  formatJobMessage,
  imagePaths,
  type Program,
  type Diagnostic,
  type Value,
} from '../lang/index.js';
import { LIMITS } from '../contract/limits.js';
import { limitsOf, outputSize } from '../contract/output-size.js';
import { CODE } from '../contract/error-codes.js';
import { QUALITY } from '../contract/outputs.js';
import { JobAssets } from './job-assets.js';
import { programKey, type ProgramCache } from './program-cache.js';
import {
  JobFailure,
  diagnosticCode,
  type FailureDiagnostic,
  type PreparedJob,
  type RenderJob,
} from './renderer-port.js';

// the output size rule is shared with the editor's in-browser export (src/contract/output-size.ts)
export { limitsOf, outputSize, type Size } from '../contract/output-size.js';

/**
 * The params against the kind's limits. The HTTP door validates them too; this is where the renderer itself
 * refuses them, so every caller (the CLI included) gets the same limits.
 */
export function checkParams(job: RenderJob): void {
  const L = limitsOf(job.kind);
  const p = job.params;
  const within = (name: string, v: number | undefined, r: { min: number; max: number }, integer: boolean) => {
    if (v === undefined) return;
    if (!Number.isFinite(v) || v < r.min || v > r.max || (integer && !Number.isInteger(v))) {
      throw new JobFailure(
        `${name} ${v} is outside ${r.min}..${r.max}${integer ? ' (whole numbers)' : ''} for a ${job.kind}`,
        CODE.invalid_params,
      );
    }
  };
  within('width', p.width, L.width, true);
  within('height', p.height, L.height, true);
  if (job.kind !== 'gif') within('quality', p.quality, QUALITY, true);
  if (job.kind === 'frame') {
    if (p.at !== undefined && !(Number.isFinite(p.at) && p.at >= LIMITS.at.min))
      throw new JobFailure(`at ${p.at} must be a time of at least ${LIMITS.at.min} s`, CODE.invalid_params);
    return;
  }
  within('fps', p.fps, L.fps, true);
  within('duration', p.duration, L.duration, false);
  if (job.kind !== 'video') return;
  within('from', p.from, { min: 0, max: L.duration.max }, false);
  within('to', p.to, { min: 0, max: L.duration.max }, false);
  if (p.from !== undefined && p.to !== undefined && !(p.to > p.from))
    throw new JobFailure(`to ${p.to} must be greater than from ${p.from}`, CODE.invalid_params);
}

/**
 * The frames a video's range covers, as indices into the whole clip's frames: from round(from x fps) up to
 * round(to x fps), exclusive (at least one frame). Frame i shows the scene at i / fps whatever the range, so frame
 * k of a range equals frame k + start of the whole video.
 */
export function rangeFrames(
  params: { from?: number; to?: number },
  fps: number,
  clipFrames: number,
  duration: number,
): { start: number; frames: number } {
  if (params.from === undefined && params.to === undefined) return { start: 0, frames: clipFrames };
  const start = Math.round((params.from ?? 0) * fps);
  const end = params.to === undefined ? clipFrames : Math.round(params.to * fps);
  if (params.to !== undefined && params.to > duration)
    throw new JobFailure(`to ${params.to} s is past the end of the clip (${duration} s)`, CODE.invalid_params);
  if (start >= clipFrames)
    throw new JobFailure(
      `from ${params.from} s is at or past the end of the clip (${duration} s)`,
      CODE.invalid_params,
    );
  return { start, frames: Math.max(1, Math.min(end, clipFrames) - start) };
}

function toFailureDiag(d: Diagnostic): FailureDiagnostic {
  const { code, message, line, column, severity, length, expected, actual, help } = d;
  const out: FailureDiagnostic = { code, message, line, column, severity, length, help };
  if (expected !== undefined) out.expected = expected;
  if (actual !== undefined) out.actual = actual;
  return out;
}

/** The language's diagnostic of a frame whose value is over the byte budget (MAX_VALUE_BYTES). */
const VALUE_BYTES_DIAGNOSTIC = 'EVL013';

/** A compile-stage job failure from diagnostics: the first error decides message and code. */
export function diagnosticsFailure(diags: readonly Diagnostic[]): JobFailure {
  const first = diags.find((d) => d.severity === 'error') ?? diags[0];
  if (!first) return new JobFailure('compile failed', CODE.internal_error);
  // a frame over the byte budget is a memory bound, which a job ends with under its own code (the diagnostic says where)
  const code = first.code === VALUE_BYTES_DIAGNOSTIC ? CODE.memory_budget : diagnosticCode(first.code);
  return new JobFailure(formatJobMessage(first), code, diags.map(toFailureDiag));
}

/**
 * A value evaluated at one time, as its JSON text: what the page draws and how repeats are told apart. The value
 * itself stays where it was evaluated (a worker thread, eval-thread.ts); what the renderer needs of it travels.
 */
export interface EvaluatedFrame {
  json: string;
  /** the evaluation read no time signal: every time of the clip has this same value */
  timeFree: boolean;
  /** value nodes evaluated (the unit of the job's work budget) */
  nodes: number;
  /** evaluation steps taken (EVL006's unit): what the evaluation cost, for the admission estimate */
  steps: number;
  /** the image paths the value draws (JobAssets checks them before the page loads them) */
  images: readonly string[];
}

/** An evaluated frame with its value, where it was evaluated. */
export interface EvaluatedValue extends EvaluatedFrame {
  value: Value;
}

/** Evaluates the program at t; an evaluation error fails the job with its diagnostic. */
export function evaluateAt(program: Program, t: number): EvaluatedValue {
  const r = program.sceneAt(t);
  if (r.diagnostics.some((d) => d.severity === 'error')) throw diagnosticsFailure(r.diagnostics);
  return {
    value: r.value,
    json: JSON.stringify(r.value),
    timeFree: r.timeFree,
    nodes: r.nodes,
    steps: r.steps,
    images: imagePaths(r.value),
  };
}

/** The code of a job refused or stopped for the evaluation work it needs (LIMITS.evaluationNodesPerJob). */
export const WORK_BUDGET_CODE = CODE.work_budget;

/** Fails the job when evaluating its frames needs more than the work budget (estimated from the first frame). */
export function checkWorkBudget(nodes: number, frames: number): void {
  const budget = LIMITS.evaluationNodesPerJob;
  if (nodes <= budget) return;
  throw new JobFailure(
    `the scene needs about ${nodes.toExponential(1)} value nodes evaluated over ${frames} frames, over the job's work budget of ` +
      `${budget.toExponential(1)}; make the scene smaller, or the clip shorter or at a lower fps`,
    WORK_BUDGET_CODE,
  );
}

/** What the renderer needs of a prepared job; it travels from the thread that evaluates (eval-thread.ts). */
export interface PlanInfo {
  runner: string;
  width: number;
  height: number;
  /** frame: the time of the frame; video and GIF: 0 */
  at: number;
  fps: number;
  /** the frames the output holds (a video's range: only those) */
  frames: number;
  /** a video's range: the index (in the whole clip) of its first frame; 0 without a range */
  start: number;
  duration: number;
  /** the first frame the job draws (at `at` for a frame job, at 0 for a video), already evaluated */
  first: EvaluatedFrame;
  assets: JobAssets;
}

/** A prepared job where it was prepared: the compiled program, and the first frame's value. */
export interface Plan extends PlanInfo {
  program: Program;
  first: EvaluatedValue;
  /** the compile's warnings (library calls that render silently wrong, LIB001-LIB006, ANI001): the job renders, its view says so */
  warnings: FailureDiagnostic[];
}

/**
 * `programs`: a thread's compiled programs, so the estimate and every render of one job (each chunk of a long video)
 * compile it once; without it (the CLI's plan before Chromium starts) the source is compiled here.
 */
export function prepare(job: RenderJob, programs?: ProgramCache): Plan {
  checkParams(job);
  const compiled = programs ? programs.compiled(job.source, job.args) : compile(job.source, { args: job.args });
  // the door refuses such args (400 invalid_args); a caller that did not ask it (the CLI, a stored job) fails here
  if (compiled.argProblems.length > 0)
    throw new JobFailure(compiled.argProblems.map((p) => p.message).join('; '), CODE.invalid_args);
  if (!compiled.ok || !compiled.program) throw diagnosticsFailure(compiled.diagnostics);
  const program = compiled.program;
  const at = job.kind === 'frame' ? (job.params.at ?? 0) : 0;
  const first = evaluateAt(program, at);
  const assets = new JobAssets(job.assets, job.source);
  assets.check(first.images);
  // the design frame (and so the output size) is the scene's at t = 0
  const at0 = at !== 0 ? program.sceneAt(0).value : first.value;
  const size = outputSize(designFrame(at0), job.params, job.kind);
  const L = limitsOf(job.kind);
  const fps = job.params.fps ?? L.fps.default;
  const duration = job.params.duration ?? program.durationSeconds;
  const clip = job.kind !== 'frame';
  if (clip && !(Number.isFinite(duration) && duration <= L.duration.max)) {
    // params.duration is checked above; a scene may still declare an endless duration
    throw new JobFailure(
      `the scene's duration (${Number.isFinite(duration) ? `${duration} s` : String(duration)}) is over the ${L.duration.max} s limit of a ${job.kind === 'gif' ? 'GIF' : 'video'}; set params.duration`,
      CODE.invalid_params,
    );
  }
  const clipFrames = clip ? Math.max(1, Math.round(duration * fps)) : 1;
  const { start, frames } =
    job.kind === 'video' ? rangeFrames(job.params, fps, clipFrames, duration) : { start: 0, frames: clipFrames };
  if (clip && !first.timeFree) checkWorkBudget(first.nodes * frames, frames);
  const warnings = compiled.diagnostics.filter((d) => d.severity === 'warning').map(toFailureDiag);
  return { program, runner: compiled.runner, ...size, at, fps, frames, start, duration, first, assets, warnings };
}

/** A job's PreparedJob from its plan (the CLI plans before Chromium starts, as admission does for the service). */
export function preparedOfPlan(job: Pick<RenderJob, 'source' | 'args'>, plan: PlanInfo): PreparedJob {
  return { program: programKey(job.source, job.args), frames: plan.frames, width: plan.width, height: plan.height };
}
