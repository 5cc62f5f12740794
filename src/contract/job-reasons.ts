// The words a client reads when a job ends without its own reason: the time limit, an internal fault, a full disk.
// One copy for the embedded service, a Redis-mode worker, the standalone runner and the renderer, so the same end
// reads the same everywhere (the time-limit sentence had come to differ between them).

/** A job stopped at its time limit (JOB_TIMEOUT_MS, in the service and the runner alike). */
export function timeLimitReason(ms: number): string {
  const s = ms / 1000;
  return `render timed out after ${Number.isInteger(s) ? s : s.toFixed(1)} s (the job limit)`;
}

/** An internal fault: the words a client gets, the detail going to the log. */
export const INTERNAL_REASON = 'render failed: internal error';

/** A write failed for space (ENOSPC). */
export const NO_SPACE_REASON = 'render failed: the service ran out of disk space';
