// Ending a job's record in error, from whichever process notices first (a worker, an API reconciling, a cancel):
// only a pending record changes, in one atomic step in Redis (endIfPending), so the first end wins and a later one
// is a no-op.
import type { JobRecord } from '../jobs/store.js';
import type { RedisJobStore } from './redis-store.js';

export async function endJob(
  store: RedisJobStore,
  id: string,
  why: { message: string; code: string | null; diagnostics?: JobRecord['diagnostics'] },
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
  await store.clearProgress(id);
  return rec;
}
