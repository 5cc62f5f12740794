// The contract between the HTTP side (src/server) and the renderer (src/render).
import type { StageTimings } from './stage-times.js';
import type { JobKind } from '../contract/job-kind.js';
import type { FrameRange } from '../contract/chunks.js';
import type { FrameFormat, VideoCodec } from '../contract/outputs.js';
import { CODE, type JobFailureCode } from '../contract/error-codes.js';
export interface RenderParams {
  fps?: number;
  duration?: number;
  at?: number;
  width?: number;
  height?: number;
  /** mesh: thickness, target height, edge bevel */
  depth?: number;
  size?: number;
  round?: number;
  /** vectorize: the tracer's options */
  strokeWidth?: number;
  threshold?: number;
  simplify?: number;
  bridge?: number;
  stitch?: number;
  maxDim?: number;
  /** video: the codec (and so the container), default h264 in MP4 */
  codec?: VideoCodec;
  /** video and frame (jpeg, webp): 0..100 on each encoder's scale (src/contract/outputs.ts) */
  quality?: number;
  /** video: the range of the scene rendered, in seconds (frame times stay the whole scene's) */
  from?: number;
  to?: number;
  /** video (vp9, prores) and frame (png, webp): keep alpha where the scene draws no background */
  transparent?: boolean;
  /** frame: png (default), jpeg or webp */
  format?: FrameFormat;
  /** GIF: 0 = loop for ever (default), n = played n times; the palette's size 2..256 */
  loop?: number;
  colors?: number;
}

/** What a job makes (src/contract/job-kind.ts). */
export type RenderKind = JobKind;

export interface RenderJob {
  id: string;
  kind: RenderKind;
  /** the scene source; for a mesh the SVG document; for vectorize the in-source path of the image (a key of assets) */
  source: string;
  params: RenderParams;
  /** the rendered scene's arguments (docs/language.md "Scene arguments"); absent: the scene's defaults */
  args?: Record<string, unknown>;
  /** in-source path (as the scene writes it, e.g. "/img/earth.jpg") -> absolute path of the uploaded file */
  assets: Record<string, string>;
  /** Where the output must be written. The renderer writes it atomically (temporary file + rename). */
  outPath: string;
  /**
   * A video's chunk (src/contract/chunks.ts): render only these frames, counted from the start of the video's range,
   * as a closed segment at outPath for a join later (MPEG-TS or Matroska by codec, ffmpeg/video.ts's segmentFormat; named
   * .ts whatever its muxer, since the join probes it). Absent: the whole output in one encode (chunks are cut and
   * joined above the renderer: a queue's chunk and join items, or chunked-video.ts for a render outside a queue).
   */
  frames?: FrameRange;
  /** what admission learnt of the job (its estimate): the renderer does not compile to learn it again */
  prepared?: PreparedJob;
}

/**
 * What admission learnt of a drawn job, kept with it (the job record's `prepared`): the key of its compiled program
 * (the SHA-256 of its source and args: the renderer takes the program its estimate compiled, by that key, and a
 * process that has none compiles it once), its frame count (where a video is cut in chunks) and its output size.
 */
export interface PreparedJob {
  program: string;
  frames: number;
  width: number;
  height: number;
}

/**
 * The files a render may write next to `outPath` while it works: the partial output (renamed into place at the end)
 * and the GIF encoder's frame store and palette. Whoever owns the output directory removes them after a failure, a
 * cancel or a crash; a finished render leaves none.
 */
export const PARTIAL_SUFFIXES = ['.tmp', '.frames.deflate', '.palette.png'] as const;

/** The segment of chunk `index` of a long video rendered in one call, next to its output (a partial file too). */
export function chunkSegmentPath(outPath: string, index: number): string {
  return `${outPath}.chunk-${String(index).padStart(4, '0')}.ts`;
}

/**
 * Joins a chunked video's segments, in order, into its file, each checked to hold its frames (`segmentFrames`, in
 * order): a segment missing or short fails with video_incomplete (ffmpeg/join.ts's segmentJoiner).
 */
export type JoinSegments = (
  segments: string[],
  outPath: string,
  segmentFrames: number[],
  codec?: VideoCodec,
) => Promise<void>;

/** A chunk segment's name (or its temporary file's): its owner is the output before `.chunk-`. */
export const CHUNK_SEGMENT_RE = /\.chunk-\d{4,}\.ts(\.tmp)?$/;

/** The classic four figures, plus where the time went stage by stage (stage-times.ts). */
export interface RenderTimings extends StageTimings {
  /** compile and evaluate the first frame */
  compile_ms: number;
  /** evaluate every frame of a video (the first one included) */
  evaluate_ms?: number;
  /** draw in the page, read back and move the pixels out (what the pipeline could not hide) */
  render_ms: number;
  encode_ms: number;
  /** a video in chunks: joining the segments into its file */
  join_ms?: number;
}

export interface RenderOutcome {
  width: number;
  height: number;
  runner: string;
  frames: number;
  timings: RenderTimings;
}

export interface RenderHooks {
  signal: AbortSignal;
  /** frames done / frames planned, 0..1; `frames` says the same in frames (a GIF passes over them twice) */
  onProgress?: (progress: number, frames?: { done: number; total: number }) => void;
}

export interface FailureDiagnostic {
  code: string;
  message: string;
  line?: number;
  column?: number;
  [k: string]: unknown;
}

type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type Capital = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I' | 'J' | 'K' | 'L' | 'M';
type Capital2 = 'N' | 'O' | 'P' | 'Q' | 'R' | 'S' | 'T' | 'U' | 'V' | 'W' | 'X' | 'Y' | 'Z';
/** A compile failure's code: the language's diagnostic code (NAM003, ASS001, ...): capitals, then digits. */
export type DiagnosticCode = `${Capital | Capital2}${string}${Digit}`;

/** What a failed job's `code` is: a registered job code, or a compile failure's diagnostic code. Never null. */
export type JobCode = JobFailureCode | DiagnosticCode;

/** A diagnostic's code as a job's code (the language types it as a string). */
export function diagnosticCode(code: string): DiagnosticCode {
  if (!/^[A-Z]{3}\d{3}$/.test(code)) throw new Error(`not a diagnostic code: ${code}`);
  return code as DiagnosticCode;
}

/**
 * A job failure the client should see: a compile failure carries its diagnostic code and the diagnostics; a
 * render-stage failure a registered code and a short reason (src/render/failure-reasons.ts).
 */
export class JobFailure extends Error {
  constructor(
    message: string,
    public code: JobCode,
    public diagnostics?: FailureDiagnostic[],
  ) {
    super(message);
  }
}

/** The code of a chunked video that would not have every frame it promised (a segment missing or short). */
export const VIDEO_INCOMPLETE = CODE.video_incomplete;

/** flat 2D layers, lit 3D (render3d), raymarched metaballs: what one pixel of one frame costs to draw */
export type CostClass = 'flat' | '3d' | 'raymarch';

/** How long a job would take on this service (src/render/work-estimate.ts). */
export interface WorkEstimate {
  /** the key of the job's compiled program (PreparedJob's `program`) */
  program: string;
  seconds: number;
  /** the output's estimated bytes (codec, quality, pixels, frames, detail: output-cost.ts) */
  bytes: number;
  /** how detailed the images are, 0 (flat) to 1 (noise): the encoder's time and bytes grow with it */
  detail: number;
  frames: number;
  /** frames the page draws: 1 for a frame or a scene that reads no time signal */
  drawnFrames: number;
  width: number;
  height: number;
  costClass: CostClass;
  /** of `seconds`, evaluating the frames in Node: evaluated frames x the costliest sampled frame's evaluation */
  evaluateSeconds: number;
  /** evaluation steps of the costliest sampled frame (at most STEP_BUDGET, EVL006) */
  stepsPerFrame: number;
  /** the source's warnings (LIB*, ANI001): it renders as written; a ready job's view shows them */
  warnings?: FailureDiagnostic[];
}

export interface Renderer {
  render(job: RenderJob, hooks: RenderHooks): Promise<RenderOutcome>;
  /**
   * The job's estimated work before it is queued; null (or absent) when the renderer cannot say. Asynchronous: making
   * it compiles the source, which must not hold the HTTP event loop (the page renderer asks a worker thread).
   */
  estimate?(job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets' | 'args'>): Promise<WorkEstimate | null>;
  /**
   * What of this renderer's own set-up changes the bytes of a job of `kind` (the GL backend, the H.264 encoder), as a
   * short string; null while it is not started (it is known once a probe frame has drawn). The render cache keeps
   * outputs of one set-up apart from another's; a renderer without it (or undefined: a kind it does not make)
   * does not promise the same bytes for the same job, and its jobs are never cached.
   */
  setup?(kind: RenderKind): string | null | undefined;
  /** Starts what needs starting (a warm browser); resolves when ready. */
  start(): Promise<void>;
  /** Why it cannot render now (a browser whose GL cannot draw even after a relaunch), or null; absent: never. */
  fault?(): string | null;
  close(): Promise<void>;
  /** Running totals for the metrics (absent: nothing to count, e.g. no browser). */
  counters?(): RendererCounters;
}

/** What a renderer counts since it was made. */
export interface RendererCounters {
  /** Chromium launches (the first and every relaunch after a crash) */
  chromiumLaunches: number;
  /** drawing pages that crashed */
  pageCrashes: number;
  /** scene programs compiled (a job's estimate compiles its program; its renders take it) */
  compiles: number;
}
