// The contract between the HTTP side (src/server) and the renderer (src/render).
import type { StageTimings } from './stage-times.js';
export interface RenderParams {
  fps?: number;
  duration?: number;
  at?: number;
  width?: number;
  height?: number;
}

export interface RenderJob {
  id: string;
  kind: 'frame' | 'video' | 'gif';
  source: string;
  params: RenderParams;
  /** in-source path (as the scene writes it, e.g. "/img/earth.jpg") -> absolute path of the uploaded file */
  assets: Record<string, string>;
  /** Where the output must be written. The renderer writes it atomically (temporary file + rename). */
  outPath: string;
}

/** The classic four figures, plus where the time went stage by stage (stage-times.ts). */
export interface RenderTimings extends StageTimings {
  /** compile and evaluate the first frame */
  compile_ms: number;
  /** evaluate every frame of a video (the first one included) */
  evaluate_ms?: number;
  /** draw in the page, read back and move the pixels out (what the pipeline could not hide) */
  render_ms: number;
  encode_ms: number;
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

/**
 * A job failure the client should see. A compile failure carries its diagnostic code and the diagnostics; a
 * render-stage failure has code null and a short reason.
 */
export class JobFailure extends Error {
  constructor(message: string, public code: string | null = null, public diagnostics?: FailureDiagnostic[]) {
    super(message);
  }
}

export interface Renderer {
  render(job: RenderJob, hooks: RenderHooks): Promise<RenderOutcome>;
  /** Starts what needs starting (a warm browser); resolves when ready. */
  start(): Promise<void>;
  close(): Promise<void>;
}
