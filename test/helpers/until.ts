// The one bounded wait of the tests: poll a condition until it holds, and when it never does, fail saying what was
// awaited (and the condition's last error). Tests wait for a fact this way, never for a fixed time.

/**
 * Waits until `cond` holds, at most `timeoutMs`. A condition that throws counts as not yet (a service still
 * starting refuses connections); its last error is in the timeout's message. The poll starts at 20 ms and slows to
 * 200 ms, so a quick fact is seen at once and a long wait does not spin a loaded machine.
 */
export async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let every = 20;
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
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, every));
    every = Math.min(200, every * 1.5);
  }
}
