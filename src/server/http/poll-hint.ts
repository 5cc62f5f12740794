// `Retry-After` on a pending job's GET: when polling again is worth it, in whole seconds. A rendering job is polled
// often (1 s once it is past half way, else 2 s) so its client sees it end promptly, and after 1 s when admission's
// estimate says what is left of it takes under a second (a frame of 0.2 s is not waited on for 2); a waiting one
// later the further back it stands (2 s per job ahead of it, at most 30 s), since nothing about it changes before the
// jobs ahead end.
import type { JobView } from '../../contract/job-view.js';

export const MAX_POLL_HINT_S = 30;

/** `estimateS`: admission's estimate of the job's rendering seconds (the record's `estimate_s`), when there is one. */
export function pollAfterSeconds(view: JobView, estimateS?: number): number | undefined {
  if (view.status !== 'pending') return undefined;
  const position = view.queue_position;
  if (position === undefined || position === 0) {
    const progress = view.progress ?? 0;
    const left = estimateS !== undefined && Number.isFinite(estimateS) ? estimateS * (1 - progress) : Infinity;
    return progress >= 0.5 || left < 1 ? 1 : 2;
  }
  return Math.min(MAX_POLL_HINT_S, Math.max(2, 2 * position));
}
