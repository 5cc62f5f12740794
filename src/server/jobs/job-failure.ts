// How a job ends, in the embedded service and in a Redis-mode worker alike: a ready job's fields, and the message and
// code a failed job's record gets (always a registered code or a diagnostic's: the one failureOf, with the storage's
// own end). A JobFailure speaks for itself; anything else is not for the client's eyes (the log has it).
import type { JobOutput, JobRecord } from './store/port.js';
import { endOf, failureOf as renderFailureOf, type JobEnd } from '../../render/failure-reasons.js';
import { STORAGE_DOWN, StorageUnavailable } from '../storage/storage.js';
import { CODE, messageOf } from '../../contract/error-codes.js';

export const CANCELLED = messageOf(CODE.cancelled);

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

export { endOf, type JobEnd };

/** The server's own errors that carry their end: storage that cannot be reached. */
const serverEnd = (err: unknown): JobEnd | undefined =>
  err instanceof StorageUnavailable ? endOf(CODE.storage_unavailable, STORAGE_DOWN) : undefined;

/**
 * How a job that did not finish ends (src/render/failure-reasons.ts's failureOf, which the runner and GET /test use
 * too, with the storage's own end). timedOut: past JOB_TIMEOUT_MS (limitMs); aborted: the service stopped it.
 */
export const failureOf = (err: unknown, how: { timedOut: boolean; aborted?: boolean; limitMs: number }): JobEnd =>
  renderFailureOf(err, how, serverEnd);
