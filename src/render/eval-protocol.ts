// The messages between the renderer and its evaluation threads (eval-thread.ts, eval-worker.ts): a job's admission
// estimate, its plan, and its frames.
import type { PlanInfo } from './prepare.js';
import type { FailureDiagnostic, JobCode, RenderJob, WorkEstimate } from './renderer-port.js';

/** What an estimate reads of a job (no id or output yet: it is not queued). */
export type EstimateInput = Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets' | 'args'>;

/** A prepared job without what stays in the thread (the program, the first frame's value) or is rebuilt (assets). */
export type PlanData = Omit<PlanInfo, 'assets'>;

/** One evaluated frame; json null: the same value as the frame before it (a repeat, not sent again). */
export interface RemoteFrame {
  json: string | null;
  nodes: number;
  steps: number;
  images: readonly string[];
}

/** A JobFailure as it crosses (message, code, diagnostics), or an internal error's text (only logged). */
export type FailureData =
  { message: string; code: JobCode; diagnostics?: FailureDiagnostic[]; internal?: undefined } | { internal: string };

/**
 * `seq` names the reader (a cursor); a new reader starts a new run of repeats, taking the first frame's JSON as the
 * one before `from` only when `from` is 1 (the reader holds it too).
 */
export type EvalRequest =
  | { op: 'estimate'; job: EstimateInput }
  | { op: 'open'; job: RenderJob }
  | { op: 'frames'; seq: number; from: number; to: number };

/**
 * `compiled`: the programs the thread compiled to answer (0 when it had the job's program already); `program`: the
 * key of the job's program, which the thread now keeps.
 */
export type EvalAnswer =
  | { op: 'estimated'; estimate: WorkEstimate | null; compiled: number; program: string }
  | { op: 'opened'; plan: PlanData; compiled: number; program: string }
  | { op: 'failed'; failure: FailureData; compiled: number; program: string }
  /** frames from `from` on, in order; failure: the frame after the last one sent failed the job */
  | { op: 'frames'; seq: number; from: number; frames: RemoteFrame[]; failure?: FailureData };
