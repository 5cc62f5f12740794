// The one bounded wait of the tests: poll a condition until it holds, and when it never does, fail saying what was
// awaited (and the condition's last error, or the last state the caller observed). Tests wait for a fact this way,
// never for a fixed time.

/** How long to wait at most, and (for a poll that must not hammer, e.g. a rate-limited endpoint) a fixed interval. */
export interface UntilOptions {
  /** At most this long (default 90 s). */
  timeoutMs?: number;
  /** Poll every this many ms instead of the default 20 ms slowing to 200 ms. */
  pollMs?: number;
}

/**
 * Waits until `cond` holds, at most `timeoutMs` (the third argument, a number or `{ timeoutMs, pollMs }`). A
 * condition that throws counts as not yet (a service still starting refuses connections); its last error is in the
 * timeout's message. `what` names the fact awaited; as a function it is called only when the wait times out, so the
 * message can say the last state the condition saw (a job's last status). The poll starts at 20 ms and slows to
 * 200 ms, so a quick fact is seen at once and a long wait does not spin a loaded machine; `pollMs` fixes it instead.
 */
export async function until(
  what: string | (() => string),
  cond: () => boolean | Promise<boolean>,
  options: number | UntilOptions = 90_000,
): Promise<void> {
  const { timeoutMs = 90_000, pollMs } = typeof options === 'number' ? { timeoutMs: options } : options;
  const end = Date.now() + timeoutMs;
  let every = pollMs ?? 20;
  let lastError: unknown;
  for (;;) {
    try {
      if (await cond()) return;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > end) {
      const why =
        lastError === undefined
          ? ''
          : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      let named: string;
      try {
        named = typeof what === 'function' ? what() : what;
      } catch (e) {
        named = `(its description failed: ${e instanceof Error ? e.message : String(e)})`;
      }
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${named}${why}`);
    }
    await new Promise((r) => setTimeout(r, every));
    if (pollMs === undefined) every = Math.min(200, every * 1.5);
  }
}
