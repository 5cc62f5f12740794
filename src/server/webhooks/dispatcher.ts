// Webhook deliveries: when a job that carries `webhook` ends (ready or error), its JSON view is POSTed to the URL,
// signed (signature.ts). A delivery never blocks rendering (it runs on timers, outside the render queue). A non-2xx
// answer, a redirect, a timeout or a network error is retried after the delays of WEBHOOK_RETRY_MS (by default 2, 5,
// 15, 30 and 60 s: six attempts over about two minutes), then given up. A 410 Gone is given up at once (Standard
// Webhooks: the receiver does not want this endpoint called again).
//
// The delivery state lives in the job record (`webhook.attempts`, `next_at`, `delivered_at`, `gave_up_at`), written
// to the journal after each attempt, so a delivery pending when the service stops resumes at the next start. An
// attempt cut by the shutdown is not counted. Delivery is at least once: a receiver should dedupe on webhook-id.
// With REDIS_URL the process that ends a job (a worker, or an API for a cancel) delivers its webhook, and each
// attempt is claimed in Redis first, so a delivery resumed by several processes is still made once per attempt.
//
// At most WEBHOOK_CONCURRENCY attempts are in flight at once: a thousand jobs ending together must not open a
// thousand outgoing connections (sockets, descriptors, a receiver flooded). An attempt that comes due past the cap
// waits in line, first due first sent; nothing is dropped (a line left at shutdown is pending in the records and
// resumes at the next start).
import type { Logger } from 'pino';
import type { Config } from '../../config/settings.js';
import { WebhookPolicy } from './address-policy.js';
import type { JobRecord, LifecycleStore } from '../jobs/store/port.js';
import { JobRecords } from '../jobs/job-records.js';
import { jobView } from '../jobs/job-view.js';
import { postPinned } from './pinned-post.js';
import { deliveryHeaders } from './signature.js';
import { recordAttempt } from './attempt-state.js';

export interface WebhookDispatcherOptions {
  /** the job records: the delivery state is written through their owner (jobs/job-records.ts) */
  store: LifecycleStore;
  policy: WebhookPolicy;
  /** wait before attempt 2, 3, ...; attempts = delays + 1 */
  retryDelaysMs: readonly number[];
  /** one attempt's limit (connect, send, answer) */
  timeoutMs: number;
  /** attempts in flight at once (WEBHOOK_CONCURRENCY); those due past it wait in line */
  maxConcurrent: number;
  log: Logger;
  now: () => number;
  /** told of each attempt's outcome (the metrics) */
  onAttempt?: (outcome: WebhookOutcome) => void;
  /**
   * With REDIS_URL, where several processes may schedule one delivery (the one that ended the job, any that resumed
   * it at start): attempt n of a job is made only by the process that claims it first (jobs/store/redis.ts). Absent: this
   * process is the only one.
   */
  claimAttempt?: (jobId: string, attempt: number, holdMs: number) => Promise<boolean>;
}

/** delivered: a 2xx; failed: retried later; gave_up: the last attempt failed, or the receiver said 410 Gone */
export type WebhookOutcome = 'delivered' | 'failed' | 'gave_up';

/** True while the job has ended and its webhook is neither delivered nor given up. */
export function deliveryPending(rec: JobRecord): boolean {
  const w = rec.webhook;
  return !!w && rec.status !== 'pending' && w.delivered_at === undefined && w.gave_up_at === undefined;
}

/** The dispatcher as the configuration sets it (WEBHOOK_ALLOW, WEBHOOK_RETRY_MS, WEBHOOK_TIMEOUT_MS). */
export function configuredDispatcher(
  config: Pick<Config, 'webhookAllow' | 'webhookRetryMs' | 'webhookTimeoutMs' | 'webhookConcurrency'>,
  o: Pick<WebhookDispatcherOptions, 'store' | 'log' | 'now' | 'onAttempt' | 'claimAttempt'>,
): WebhookDispatcher {
  return new WebhookDispatcher({
    ...o,
    policy: new WebhookPolicy(config.webhookAllow),
    retryDelaysMs: config.webhookRetryMs,
    timeoutMs: config.webhookTimeoutMs,
    maxConcurrent: config.webhookConcurrency,
  });
}

/** How long a claimed attempt stays claimed (with REDIS_URL): its time limit and the record's write after it. */
const attemptHoldMs = (timeoutMs: number): number => timeoutMs + 30_000;

export class WebhookDispatcher {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inflight = new Map<string, { ctl: AbortController; done: Promise<void> }>();
  /** attempts due while maxConcurrent were in flight, in the order they came due */
  private readonly line = new Set<string>();
  private closed = false;
  private readonly records: JobRecords;

  constructor(private readonly o: WebhookDispatcherOptions) {
    this.records = new JobRecords(o.store, o.now);
  }

  /** At start: schedules every pending delivery of the last run, within its next retry delay at the latest. */
  async resume(): Promise<void> {
    for (const rec of await this.records.list()) {
      if (!deliveryPending(rec)) continue;
      const attempts = rec.webhook!.attempts ?? 0;
      const cap = attempts ? (this.o.retryDelaysMs[attempts - 1] ?? 0) : 0;
      const due = rec.webhook!.next_at === undefined ? 0 : rec.webhook!.next_at - this.o.now();
      this.schedule(rec.job_id, Math.min(Math.max(0, due), cap));
    }
  }

  /** A job ended: deliver its webhook, if it has one. */
  ended(rec: JobRecord): void {
    if (deliveryPending(rec)) this.schedule(rec.job_id, 0);
  }

  /** Attempts in flight and attempts due that wait for one of them to end. */
  load(): { inFlight: number; waiting: number } {
    return { inFlight: this.inflight.size, waiting: this.line.size };
  }

  /** Stops the timers and cuts the attempts in flight (they are not counted; the next start resumes them). */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.line.clear();
    for (const f of this.inflight.values()) f.ctl.abort(new Error('shutdown'));
    await Promise.allSettled([...this.inflight.values()].map((f) => f.done));
  }

  private schedule(id: string, ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timers.get(id));
    const t = setTimeout(() => {
      this.timers.delete(id);
      this.line.add(id);
      this.startNext();
    }, ms);
    // a pending delivery must not keep a stopping process alive: it is in the journal and resumes at the next start
    t.unref();
    this.timers.set(id, t);
  }

  /** Starts attempts from the line while fewer than maxConcurrent are in flight. */
  private startNext(): void {
    for (const id of this.line) {
      if (this.closed || this.inflight.size >= this.o.maxConcurrent) return;
      // one attempt per job at a time: a job due again while its attempt runs waits for it
      if (this.inflight.has(id)) continue;
      this.line.delete(id);
      const ctl = new AbortController();
      const done = this.attempt(id, ctl.signal)
        .catch((err) => this.o.log.error({ err, job_id: id }, 'webhook delivery crashed'))
        .finally(() => {
          this.inflight.delete(id);
          this.startNext();
        });
      this.inflight.set(id, { ctl, done });
    }
  }

  private async attempt(id: string, stop: AbortSignal): Promise<void> {
    const rec = await this.records.get(id);
    if (!rec || !deliveryPending(rec)) return;
    const hook = rec.webhook!;
    const n = (hook.attempts ?? 0) + 1;
    if (this.o.claimAttempt && !(await this.o.claimAttempt(id, n, attemptHoldMs(this.o.timeoutMs)))) return;
    let outcome: string;
    let ok = false;
    let gone = false;
    try {
      // the host is checked again (what it resolves to may have changed since the job was posted), and the
      // delivery connects to the address checked
      const { url, addresses } = await this.o.policy.resolve(hook.url);
      const body = JSON.stringify(jobView(rec, {}));
      const timestamp = Math.floor(this.o.now() / 1000);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'cmrender-webhook',
        ...deliveryHeaders(hook.secret, id, timestamp, body),
      };
      // a redirect is not followed (postPinned never does): it could lead anywhere, including inside the network
      const res = await postPinned(
        url,
        addresses[0],
        headers,
        body,
        AbortSignal.any([stop, AbortSignal.timeout(this.o.timeoutMs)]),
      );
      ok = res.status >= 200 && res.status < 300;
      // Standard Webhooks: 410 Gone says the endpoint no longer wants deliveries; no retry
      gone = res.status === 410;
      outcome = `HTTP ${res.status}`;
    } catch (err) {
      outcome = err instanceof Error ? err.message : String(err);
    }
    if (stop.aborted) return;
    let delay: number | undefined;
    const written = await this.records.webhookAttempt(id, (w) => {
      delay = recordAttempt(w, n, { ok, gone }, this.o.retryDelaysMs, this.o.now());
      // counted before the write: a reader that sees the record's new state sees the attempt counted too
      this.o.onAttempt?.(ok ? 'delivered' : delay === undefined ? 'gave_up' : 'failed');
    });
    if (!written) return;
    const log = { job_id: id, event: 'webhook_attempt', attempt: n, outcome };
    if (ok) this.o.log.info(log, 'webhook delivered');
    else if (delay === undefined) this.o.log.warn(log, 'webhook given up');
    else {
      this.o.log.info({ ...log, retry_in_ms: delay }, 'webhook attempt failed');
      this.schedule(id, delay);
    }
  }
}
