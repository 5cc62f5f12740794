// Bounded waits on the browser: a close, or a check of an idle page, must not hang on a page or process that never
// answers.

/** Whether the promise settles (resolves or rejects) within ms; it is left running either way. */
export async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = p.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
