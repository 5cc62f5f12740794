// What happens to stored jobs when the service starts again (service.md: "A job that was pending or rendering when
// the service stopped is not lost"). Pure: records in, a plan out; the job service applies it.
//
// - pending, never started (no started_at): queued again, in created_at order.
// - pending and started (started_at set: it was rendering when the service stopped): queued again once, with
//   `interrupted` counting the interruption and started_at/progress cleared.
// - the same, when it had already been queued again after an interruption (interrupted >= 1): it ends in `error`
//   with code `interrupted` and its sentence, so a job that takes the service down every time cannot loop forever.
// - ready and error records are left as they are (their expiry comes from their stored times).
import type { JobRecord } from '../jobs/store/port.js';
import { CODE, messageOf } from '../../contract/error-codes.js';

export const INTERRUPTED_MESSAGE = messageOf(CODE.interrupted);

/** How many interruptions a job survives before it ends in error. */
export const MAX_INTERRUPTIONS = 1;

/** A stored record plus the recovery counter (kept in the same journal line). */
export type RecoverableRecord = JobRecord & { interrupted?: number };

export interface RecoveryPlan {
  /** ids to queue again, in the order they must run (created_at, then job_id) */
  requeue: string[];
  /** records whose stored fields change (write them back before queueing) */
  updates: RecoverableRecord[];
  /** ids that end in error as interrupted */
  failed: string[];
}

export function planRecovery(records: readonly RecoverableRecord[], now: number): RecoveryPlan {
  const pending = records.filter((r) => r.status === 'pending');
  pending.sort((a, b) => a.created_at - b.created_at || (a.job_id < b.job_id ? -1 : a.job_id > b.job_id ? 1 : 0));
  const plan: RecoveryPlan = { requeue: [], updates: [], failed: [] };
  for (const r of pending) {
    if (r.started_at === undefined || r.started_at === null) {
      plan.requeue.push(r.job_id);
      continue;
    }
    const times = r.interrupted ?? 0;
    if (times < MAX_INTERRUPTIONS) {
      const next: RecoverableRecord = structuredClone(r);
      delete next.started_at;
      delete next.progress;
      next.interrupted = times + 1;
      plan.updates.push(next);
      plan.requeue.push(r.job_id);
    } else {
      const next: RecoverableRecord = structuredClone(r);
      next.status = 'error';
      next.completed_at = now;
      next.message = INTERRUPTED_MESSAGE;
      next.code = CODE.interrupted;
      delete next.progress;
      plan.updates.push(next);
      plan.failed.push(r.job_id);
    }
  }
  return plan;
}
