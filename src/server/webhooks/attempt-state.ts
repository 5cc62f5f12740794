// What one delivery attempt does to a webhook's state, for a job's webhook (dispatcher.ts) and a batch's
// (jobs/batches/batch-webhook.ts) alike: the attempt counted, then delivered on a 2xx, given up on 410 Gone or once
// the retry schedule (WEBHOOK_RETRY_MS) has run out, else due again after the schedule's next delay.
import type { WebhookState } from '../jobs/store/port.js';

/** The outcome of attempt `n` written into `w`; the delay until the next attempt, or undefined when none is due. */
export function recordAttempt(
  w: WebhookState,
  n: number,
  outcome: { ok: boolean; gone: boolean },
  retryDelaysMs: readonly number[],
  now: number,
): number | undefined {
  w.attempts = n;
  delete w.next_at;
  const delay = outcome.ok || outcome.gone ? undefined : retryDelaysMs[n - 1];
  if (outcome.ok) w.delivered_at = now;
  else if (delay === undefined) w.gave_up_at = now;
  else w.next_at = now + delay;
  return delay;
}
