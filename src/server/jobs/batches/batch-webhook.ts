// A batch's webhook: POSTed once, when its last row has ended, with the batch's view, signed as a job's webhook is
// (webhooks/signature.ts: `webhook-id` msg_<batch_id>, the timestamp, the Standard Webhooks and the older signature),
// to an address the webhook policy allows (checked again at each attempt, connected to as checked), retried after
// WEBHOOK_RETRY_MS's delays and given up after the last, or at once on 410 Gone. Its progress is written to the
// batch's record (attempts, delivered_at, gave_up_at), so a delivery a stop cut short resumes at the next start. The
// job webhooks' dispatcher (webhooks/dispatcher.ts) reads job records; a batch's has its own record, hence this.
import type { Logger } from 'pino';
import type { WebhookPolicy } from '../../webhooks/address-policy.js';
import { postPinned } from '../../webhooks/pinned-post.js';
import { deliveryHeaders } from '../../webhooks/signature.js';
import { recordAttempt } from '../../webhooks/attempt-state.js';
import type { BatchRecord, BatchStore } from './batch-store.js';
import type { BatchView } from '../../../contract/batch-view.js';

export interface BatchWebhookOptions {
  store: BatchStore;
  policy: WebhookPolicy;
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  /** the batch's view now (the body of each attempt) */
  view: (rec: BatchRecord) => Promise<BatchView>;
  log: Logger;
  now: () => number;
}

/** True while the batch has ended and its webhook is neither delivered nor given up. */
export function batchDeliveryPending(rec: BatchRecord): boolean {
  const w = rec.webhook;
  return !!w && rec.ended_at !== undefined && w.delivered_at === undefined && w.gave_up_at === undefined;
}

export class BatchWebhooks {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly stop = new AbortController();

  constructor(private readonly o: BatchWebhookOptions) {}

  /** A batch ended (or was found ended at start): deliver its webhook, if it has one still owed. */
  ended(rec: BatchRecord): void {
    if (!batchDeliveryPending(rec)) return;
    const due = rec.webhook!.next_at === undefined ? 0 : Math.max(0, rec.webhook!.next_at - this.o.now());
    this.schedule(rec.batch_id, due);
  }

  close(): void {
    this.stop.abort(new Error('shutdown'));
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private schedule(id: string, ms: number): void {
    if (this.stop.signal.aborted) return;
    clearTimeout(this.timers.get(id));
    const t = setTimeout(() => {
      this.timers.delete(id);
      this.attempt(id).catch((err) => this.o.log.error({ err, batch_id: id }, 'batch webhook crashed'));
    }, ms);
    t.unref();
    this.timers.set(id, t);
  }

  private async attempt(id: string): Promise<void> {
    const rec = await this.o.store.get(id);
    if (!rec || !batchDeliveryPending(rec)) return;
    const hook = rec.webhook!;
    const n = (hook.attempts ?? 0) + 1;
    let ok = false;
    let gone = false;
    let outcome: string;
    try {
      const { url, addresses } = await this.o.policy.resolve(hook.url);
      const body = JSON.stringify(await this.o.view(rec));
      const timestamp = Math.floor(this.o.now() / 1000);
      const res = await postPinned(
        url,
        addresses[0],
        {
          'content-type': 'application/json',
          'user-agent': 'cmrender-webhook',
          ...deliveryHeaders(hook.secret, id, timestamp, body),
        },
        body,
        AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.o.timeoutMs)]),
      );
      ok = res.status >= 200 && res.status < 300;
      gone = res.status === 410;
      outcome = `HTTP ${res.status}`;
    } catch (err) {
      outcome = err instanceof Error ? err.message : String(err);
    }
    if (this.stop.signal.aborted) return;
    const fresh = await this.o.store.get(id);
    if (!fresh?.webhook) return;
    const delay = recordAttempt(fresh.webhook, n, { ok, gone }, this.o.retryDelaysMs, this.o.now());
    await this.o.store.put(fresh);
    const log = { batch_id: id, event: 'batch_webhook_attempt', attempt: n, outcome };
    if (ok) this.o.log.info(log, 'batch webhook delivered');
    else if (delay === undefined) this.o.log.warn(log, 'batch webhook given up');
    else this.schedule(id, delay);
  }
}
