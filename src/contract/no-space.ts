// Whether an error says a disk is full: the renderer (its writes) and the server (uploads, the journal, outputs)
// both answer it as storage_full instead of passing the raw text on.

/** True for an error raised because a disk is full (ENOSPC, EDQUOT). */
export function isNoSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    code === 'ENOSPC' ||
    code === 'EDQUOT' ||
    /\bENOSPC\b|no space left/i.test(err instanceof Error ? err.message : String(err))
  );
}
