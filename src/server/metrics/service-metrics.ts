// The service's Prometheus metrics (prom-client), named by Prometheus' conventions: a `cmrender_` prefix, base units
// (seconds, bytes), `_total` on counters, and no job ids as labels (kind, status, code, stage and outcome are small
// fixed sets). Each app has its own registry, so two apps in one process (the tests) never share counts. Node's
// default process metrics (process_*, nodejs_*) keep their usual names, so stock dashboards read them.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { RendererCounters } from '../../render/renderer-port.js';
import type { JobEvents, JobLoad } from '../jobs/job-service.js';
import type { EventEmitter } from 'node:events';
import type { WebhookOutcome } from '../webhooks/dispatcher.js';
import { RenderMetrics } from './render-metrics.js';

export interface MetricSources {
  /** jobs waiting and rendering now */
  load(): Promise<JobLoad>;
  /** output bytes stored and the budget */
  outputs(): { bytes: number; budgetBytes: number | undefined };
  /** the renderer's running totals, when this process renders */
  renderer(): RendererCounters | undefined;
  /** webhook attempts of this process in flight and waiting for a slot */
  webhooks?(): { inFlight: number; waiting: number };
  /** more exposition text to append (Redis mode: BullMQ's export of the shared queue) */
  extra?(): Promise<string>;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly accepted: Counter<'kind'>;
  private readonly refused: Counter<'code'>;
  /** what the renderer of this process did (shared with the Redis-mode render worker's metrics) */
  readonly render: RenderMetrics;

  constructor(private readonly sources: MetricSources) {
    const registers = [this.registry];
    this.accepted = new Counter({
      name: 'cmrender_jobs_accepted_total',
      help: 'Jobs accepted (202) by kind; an idempotent replay is not counted again.',
      labelNames: ['kind'],
      registers,
    });
    this.refused = new Counter({
      name: 'cmrender_jobs_refused_total',
      help: 'POSTs of a job refused, by the error code of the answer (invalid_params, queue_full, rate_limited, ...).',
      labelNames: ['code'],
      registers,
    });
    this.render = new RenderMetrics(this.registry, () => sources.renderer());
    if (sources.webhooks) {
      const webhooks = sources.webhooks;
      new Gauge({
        name: 'cmrender_webhook_deliveries_in_flight',
        help: 'Webhook delivery attempts in flight now (at most WEBHOOK_CONCURRENCY).',
        registers,
        collect() {
          this.set(webhooks().inFlight);
        },
      });
      new Gauge({
        name: 'cmrender_webhook_deliveries_waiting',
        help: 'Webhook delivery attempts due that wait for a slot (WEBHOOK_CONCURRENCY in flight).',
        registers,
        collect() {
          this.set(webhooks().waiting);
        },
      });
    }
    new Gauge({
      name: 'cmrender_queue_depth',
      help: 'Jobs waiting for a render slot.',
      registers,
      async collect() {
        this.set((await sources.load()).waiting);
      },
    });
    new Gauge({
      name: 'cmrender_jobs_running',
      help: 'Jobs rendering now (in Redis mode: queue entries, chunks included, in a worker hands).',
      registers,
      async collect() {
        this.set((await sources.load()).running);
      },
    });
    new Gauge({
      name: 'cmrender_output_bytes',
      help: 'Bytes of outputs stored.',
      registers,
      collect() {
        this.set(sources.outputs().bytes);
      },
    });
    new Gauge({
      name: 'cmrender_output_budget_bytes',
      help: 'The output disk budget (OUTPUT_MAX_BYTES).',
      registers,
      collect() {
        const b = sources.outputs().budgetBytes;
        if (b !== undefined) this.set(b);
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Listens to the job service's events. */
  watch(events: EventEmitter<JobEvents>): void {
    events.on('created', (rec) => this.accepted.inc({ kind: rec.kind }));
    this.render.watch(events);
  }

  refusedJob(code: string): void {
    this.refused.inc({ code });
  }

  webhookAttempt(outcome: WebhookOutcome): void {
    this.render.webhookAttempt(outcome);
  }

  async text(): Promise<string> {
    const ours = await this.registry.metrics();
    const extra = await this.sources.extra?.().catch(() => '');
    return extra ? `${ours.trimEnd()}\n${extra.trimEnd()}\n` : ours;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
