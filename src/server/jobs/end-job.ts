// Ending a job's record in error, from whichever process notices first (the process rendering it, a cancel, an API
// that finds its queue entry lost): only a pending record changes, in one atomic step (LifecycleStore.endIfPending),
// so the first end wins and a later one is a no-op.
import type { JobRecord, LifecycleStore } from './store/port.js';
import type { JobEnd } from './job-failure.js';

export async function endJob(
  store: LifecycleStore,
  id: string,
  why: JobEnd,
  now: () => number,
): Promise<JobRecord | undefined> {
  const rec = await store.get(id);
  if (!rec || rec.status !== 'pending') return undefined;
  const t = now();
  Object.assign(rec, { status: 'error', completed_at: t, message: why.message, code: why.code } as Partial<JobRecord>);
  if (why.diagnostics) rec.diagnostics = why.diagnostics;
  rec.timings = {
    ...(rec.started_at ? { queue_wait_ms: rec.started_at - rec.created_at } : {}),
    total_ms: t - rec.created_at,
  };
  delete rec.progress;
  if (!(await store.endIfPending(rec))) return undefined;
  return rec;
}
