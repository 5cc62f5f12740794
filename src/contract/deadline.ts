// A job's time limit as every path that renders keeps it (the embedded service, a Redis-mode worker, GET /test, the
// standalone runner): past the limit the render's AbortController is aborted with a "timeout" reason, and the caller
// asks `timedOut` to tell the limit from a cancel or a stop that aborted the same controller.

export interface Deadline {
  /** the limit passed (and aborted the controller) */
  readonly timedOut: boolean;
  /** the limit is no longer watched (the render ended) */
  clear(): void;
}

/** Aborts `ctl` once `ms` have passed (at once when ms <= 0). */
export function deadline(ctl: AbortController, ms: number): Deadline {
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      ctl.abort(new Error('timeout'));
    },
    Math.max(0, ms),
  );
  return {
    get timedOut() {
      return timedOut;
    },
    clear: () => clearTimeout(timer),
  };
}
