// Bounded waits on the browser: a close, a check of an idle page, a page warming or a probe frame must not hang on
// a page or process that never answers. Whether a promise settles in time is src/contract/settle-within.ts's.

/** A wait on the browser that took longer than it may (a page, context or probe that never came back). */
export class TookTooLong extends Error {}

/**
 * p's value, or a TookTooLong naming `what` once ms have passed; p is left running (the caller disposes of what it
 * may still bring).
 */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new TookTooLong(`${what} took longer than ${ms / 1000} s`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
