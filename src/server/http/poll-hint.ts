// `Retry-After` on a pending job's GET: when polling again is worth it, in whole seconds. A rendering job is polled
// often (1 s once it is past half way, else 2 s) so its client sees it end promptly; a waiting one later the further
// back it stands (2 s per job ahead of it, at most 30 s), since nothing about it changes before the jobs ahead end.
import type { JobView } from './schemas/jobs.js';

export const MAX_POLL_HINT_S = 30;

export function pollAfterSeconds(view: JobView): number | undefined {
  if (view.status !== 'pending') return undefined;
  const position = view.queue_position;
  if (position === undefined || position === 0) return (view.progress ?? 0) >= 0.5 ? 1 : 2;
  return Math.min(MAX_POLL_HINT_S, Math.max(2, 2 * position));
}
