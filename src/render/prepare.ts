// Node-side preparation of a job before any pixel is drawn: compile (src/lang), output size (service.md "Rendering
// rules"), frame plan, and the asset check (ASS001). Pure: no browser, no files.
import { compile, designFrame, formatJobMessage, imagePaths, type Program, type Diagnostic } from '../lang/index.js';
import { LIMITS } from '../contract/limits.js';
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

/** 1-based line and UTF-8 byte column of the first string literal "<path>" in the source, if any. */
export function literalPosition(source: string, path: string): { line: number; column: number } | undefined {
  const i = source.indexOf(JSON.stringify(path));
  const j = i >= 0 ? i : source.indexOf(`"${path}"`);
  if (j < 0) return undefined;
  const before = source.slice(0, j);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = Buffer.byteLength(source.slice(lineStart, j), 'utf8') + 1;
  return { line, column };
}

/** ASS001 when the scene uses an image path that is not mapped to an uploaded asset of the job. */
export function checkImages(value: Parameters<typeof imagePaths>[0], assets: Record<string, string>, source: string): void {
  for (const p of imagePaths(value)) {
    if (normalizeAssetPath(p) in assets || p in assets) continue;
    const pos = literalPosition(source, p);
    const text = `image "${p}" is not an uploaded asset of this job`;
    const diag: FailureDiagnostic = { code: 'ASS001', message: text, severity: 'error' };
    if (pos) Object.assign(diag, pos);
    throw new JobFailure(pos ? `ASS001 ${text} at line ${pos.line}, column ${pos.column}` : `ASS001 ${text}`, 'ASS001', [diag]);
  }
}

/** The URL path the page requests for an in-source path (what `new URL(p, origin + '/')` gives). */
export function normalizeAssetPath(p: string): string {
  try {
    return decodeURIComponent(new URL(p, 'http://cmrender.invalid/').pathname);
  } catch {
    return p;
  }
}

export interface Plan {
  program: Program;
  runner: string;
  width: number;
  height: number;
  /** frame: the time of the frame; video: unused (0) */
  at: number;
  fps: number;
  frames: number;
  duration: number;
  /** asset files keyed by the URL path the page will request */
  assetFiles: Map<string, string>;
}

export function prepare(job: RenderJob): Plan {
  const compiled = compile(job.source);
  if (!compiled.ok || !compiled.program) throw diagnosticsFailure(compiled.diagnostics);
  const program = compiled.program;
  const first = program.sceneAt(job.kind === 'frame' ? (job.params.at ?? 0) : 0);
  if (first.diagnostics.some((d) => d.severity === 'error')) throw diagnosticsFailure(first.diagnostics);
  const assetsByUrl: Record<string, string> = {};
  for (const [p, file] of Object.entries(job.assets)) assetsByUrl[normalizeAssetPath(p)] = file;
  checkImages(first.value, assetsByUrl, job.source);
  const at0 = job.kind === 'frame' && (job.params.at ?? 0) !== 0 ? program.sceneAt(0).value : first.value;
  const size = outputSize(designFrame(at0), job.params, job.kind === 'video');
  const fps = job.params.fps ?? LIMITS.fps.default;
  const duration = job.params.duration ?? program.durationSeconds;
  if (job.kind === 'video' && !(Number.isFinite(duration) && duration <= LIMITS.duration.max)) {
    // params.duration is validated at the door; a scene may still declare an endless duration
    throw new JobFailure(`the scene's duration (${Number.isFinite(duration) ? `${duration} s` : String(duration)}) is over the ${LIMITS.duration.max} s limit of a video; set params.duration`, null);
  }
  const frames = job.kind === 'video' ? Math.max(1, Math.round(duration * fps)) : 1;
  return {
    program,
    runner: compiled.runner,
    ...size,
    at: job.params.at ?? 0,
    fps,
    frames,
    duration,
    assetFiles: new Map(Object.entries(assetsByUrl)),
  };
}
