// How a job that did not finish ends, in the embedded service and in a Redis-mode worker alike: the message and
// code its record gets. A JobFailure speaks for itself; anything else is not for the client's eyes (the log has it).
import type { JobOutput, JobRecord } from './store.js';
import { JobFailure } from '../../render/renderer-port.js';
import { INTERNAL_REASON, NO_SPACE_REASON, timeLimitReason } from '../../contract/job-reasons.js';
import { isNoSpace } from '../../contract/no-space.js';
import { STORAGE_DOWN, StorageUnavailable } from '../storage/storage.js';
import { CODE, messageOf } from '../../contract/error-codes.js';

export const CANCELLED = messageOf(CODE.cancelled);
export const INTERRUPTED = 'render interrupted: the service stopped';

/**
 * The fields of a job that ended ready: its output, the runner that drew it and where its time went (`timings`:
 * the renderer's stages, or a chunked video's chunk and join times), with its queue wait and total.
 */
export function readyFields(
  rec: JobRecord,
  output: JobOutput,
  runner: string,
  timings: Record<string, number>,
): Partial<JobRecord> {
  const done = output.written_at;
  return {
    status: 'ready',
    completed_at: done,
    progress: 1,
    runner,
    output,
    timings: { queue_wait_ms: (rec.started_at ?? done) - rec.created_at, ...timings, total_ms: done - rec.created_at },
  };
}

/** A render's timings as a record keeps them: its numbers only. */
export function stageTimings(outcome: { timings: object }): Record<string, number> {
  return Object.fromEntries(Object.entries(outcome.timings).filter(([, v]) => typeof v === 'number')) as Record<
    string,
    number
  >;
}

export interface JobEnd {
  message: string;
  code: string | null;
  diagnostics?: JobRecord['diagnostics'];
}

/**
 * timedOut: the job ran past JOB_TIMEOUT_MS (limitMs); aborted: the service stopped it (a shutdown, not a client).
 */
export function failureOf(err: unknown, how: { timedOut: boolean; aborted?: boolean; limitMs: number }): JobEnd {
  if (how.timedOut) return { message: timeLimitReason(how.limitMs), code: null };
  if (how.aborted) return { message: INTERRUPTED, code: null };
  if (err instanceof JobFailure)
    return err.diagnostics
      ? { message: err.message, code: err.code, diagnostics: err.diagnostics }
      : { message: err.message, code: err.code };
  if (isNoSpace(err)) return { message: NO_SPACE_REASON, code: CODE.storage_full };
  if (err instanceof StorageUnavailable) return { message: STORAGE_DOWN, code: CODE.storage_unavailable };
  return { message: INTERNAL_REASON, code: null };
}
