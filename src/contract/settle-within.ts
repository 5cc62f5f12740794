// Waiting for something to end without waiting for ever, the one bounded settle of the code base: a render released
// after a time limit or a cancel, the jobs in hand at shutdown (src/server/jobs), a browser's close, a check of an
// idle page or a page warming (src/render). The promise is left running either way.

/** Waits for p to settle (resolved or rejected), at most ms (Infinity: no limit); true when it settled in time. */
export async function settleWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms === Infinity) {
    await p.catch(() => {});
    return true;
  }
  let t: NodeJS.Timeout | undefined;
  const ok = await Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((r) => (t = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(t);
  return ok;
}
