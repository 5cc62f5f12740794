// The service's Prometheus metrics (prom-client), named by Prometheus' conventions: a `cmrender_` prefix, base units
// (seconds, bytes), `_total` on counters, and no job ids as labels (kind, status, code, stage and outcome are small
// fixed sets). Each app has its own registry, so two apps in one process (the tests) never share counts. Node's
// default process metrics (process_*, nodejs_*) keep their usual names, so stock dashboards read them.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RendererCounters } from '../../render/types.js';
import type { JobEvents, JobLoad } from '../jobs/job-service.js';
import type { EventEmitter } from 'node:events';
import type { WebhookOutcome } from '../webhooks/dispatcher.js';

export interface MetricSources {
  /** jobs waiting and rendering now */
  load(): Promise<JobLoad>;
  /** output bytes stored and the budget */
  outputs(): { bytes: number; budgetBytes: number | undefined };
  /** the renderer's running totals, when this process renders */
  renderer(): RendererCounters | undefined;
  /** webhook attempts in flight and waiting for a slot (without REDIS_URL) */
  webhooks?(): { inFlight: number; waiting: number };
  /** more exposition text to append (Redis mode: BullMQ's export of the shared queue) */
  extra?(): Promise<string>;
}

/** Render times run from a tenth of a second (a small frame) to the 15-minute job limit. */
const RENDER_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];
/** One stage of one job: from a millisecond up. */
const STAGE_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly accepted: Counter<'kind'>;
  private readonly refused: Counter<'code'>;
  private readonly ended: Counter<'kind' | 'status'>;
  private readonly renderSeconds: Histogram<'kind'>;
  private readonly stageSeconds: Histogram<'kind' | 'stage'>;
  private readonly frames: Counter<'kind'>;
  private readonly webhooks: Counter<'outcome'>;

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
    this.ended = new Counter({
      name: 'cmrender_jobs_ended_total',
      help: 'Jobs ended, by kind and status (ready or error).',
      labelNames: ['kind', 'status'],
      registers,
    });
    this.renderSeconds = new Histogram({
      name: 'cmrender_render_duration_seconds',
      help: 'Wall time of a ready job from its start to its stored output, by kind.',
      labelNames: ['kind'],
      buckets: RENDER_BUCKETS,
      registers,
    });
    this.stageSeconds = new Histogram({
      name: 'cmrender_render_stage_duration_seconds',
      help: 'Time of a ready job spent in each stage (compile, evaluate, draw, read, pack, transfer, decode, convert, encode, write, join), by kind; stages of a pipelined video overlap.',
      labelNames: ['kind', 'stage'],
      buckets: STAGE_BUCKETS,
      registers,
    });
    this.frames = new Counter({
      name: 'cmrender_frames_rendered_total',
      help: 'Frames in the outputs of ready jobs, by kind (a frame job: 1; a video: all of its frames).',
      labelNames: ['kind'],
      registers,
    });
    this.webhooks = new Counter({
      name: 'cmrender_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered (2xx), failed (retried later), gave_up (last attempt or 410).',
      labelNames: ['outcome'],
      registers,
    });
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
    // the renderer counts for itself (it must not know of the server): its totals are read at each scrape
    new Counter({
      name: 'cmrender_chromium_launches_total',
      help: 'Chromium launches: the first at start and every relaunch after a crash.',
      registers,
      collect() {
        this.reset();
        this.inc(sources.renderer()?.chromiumLaunches ?? 0);
      },
    });
    new Counter({
      name: 'cmrender_page_crashes_total',
      help: 'Drawing pages that crashed (each is replaced by a fresh one).',
      registers,
      collect() {
        this.reset();
        this.inc(sources.renderer()?.pageCrashes ?? 0);
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Listens to the job service's events. */
  watch(events: EventEmitter<JobEvents>): void {
    events.on('created', (rec) => this.accepted.inc({ kind: rec.kind }));
    events.on('ended', (rec) => this.ended.inc({ kind: rec.kind, status: rec.status }));
    events.on('rendered', (rec, outcome) => {
      if (rec.started_at !== undefined && rec.completed_at !== undefined)
        this.renderSeconds.observe({ kind: rec.kind }, (rec.completed_at - rec.started_at) / 1000);
      this.frames.inc({ kind: rec.kind }, outcome.frames);
      for (const [key, ms] of Object.entries(outcome.timings)) {
        // render_ms is the sum of the page stages, not a stage of its own
        if (key === 'render_ms' || !key.endsWith('_ms') || typeof ms !== 'number') continue;
        this.stageSeconds.observe({ kind: rec.kind, stage: key.slice(0, -3) }, ms / 1000);
      }
    });
  }

  refusedJob(code: string): void {
    this.refused.inc({ code });
  }

  webhookAttempt(outcome: WebhookOutcome): void {
    this.webhooks.inc({ outcome });
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
