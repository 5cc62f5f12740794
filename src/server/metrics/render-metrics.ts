// The render half of the Prometheus metrics: what a process that renders counts, whether it is the embedded service
// (ServiceMetrics) or a Redis-mode render worker (WorkerMetrics). One definition, so a dashboard sums the same
// series over every pod. Job ids are never labels.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { RendererCounters } from '../../render/renderer-port.js';
import type { EventEmitter } from 'node:events';
import type { JobRecord } from '../jobs/store/port.js';
import type { JobEvents } from '../jobs/job-service.js';
import type { WebhookOutcome } from '../webhooks/dispatcher.js';

/** Render times run from a tenth of a second (a small frame) to the 15-minute job limit. */
const RENDER_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];
/** One stage of one job: from a millisecond up. */
const STAGE_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export class RenderMetrics {
  private readonly ended: Counter<'kind' | 'status'>;
  private readonly renderSeconds: Histogram<'kind'>;
  private readonly stageSeconds: Histogram<'kind' | 'stage'>;
  private readonly frames: Counter<'kind'>;
  private readonly workerRenders: Counter<'kind' | 'part' | 'status'>;
  private readonly webhooks: Counter<'outcome'>;

  /** `renderer`: the renderer's running totals, when this process renders */
  constructor(registry: Registry, renderer: () => RendererCounters | undefined) {
    const registers = [registry];
    this.ended = new Counter({
      name: 'cmrender_jobs_ended_total',
      help: 'Jobs ended by this process, by kind and status (ready or error).',
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
      help: 'Time of a ready job (in a render worker: of a job, a chunk or a join) spent in each stage (compile, evaluate, draw, read, pack, transfer, decode, convert, encode, write, join), by kind; stages of a pipelined video overlap.',
      labelNames: ['kind', 'stage'],
      buckets: STAGE_BUCKETS,
      registers,
    });
    // whichever process ends a job delivers its webhook: an API (embedded, or a cancel in Redis mode) or a worker
    this.webhooks = new Counter({
      name: 'cmrender_webhook_deliveries_total',
      help: 'Webhook delivery attempts made by this process, by outcome: delivered (2xx), failed (retried later), gave_up (last attempt or 410).',
      labelNames: ['outcome'],
      registers,
    });
    this.frames = new Counter({
      name: 'cmrender_frames_rendered_total',
      help: 'Frames drawn into outputs that were kept, by kind (a frame job: 1; a video: all of its frames; in a render worker, a chunk: its own frames).',
      labelNames: ['kind'],
      registers,
    });
    this.workerRenders = new Counter({
      name: 'cmrender_worker_renders_total',
      help: 'Items of work this process rendered (in either mode), by kind, part (whole: a job in one piece; chunk: a chunk of a video; join: the join of its chunks) and status (ready; error: the job ended in error; stopped: the job had ended, nothing kept; handed_back: a shutdown gave it back to the queue, or embedded checkpointed its job).',
      labelNames: ['kind', 'part', 'status'],
      registers,
    });
    // the renderer counts for itself (it must not know of the server): its totals are read at each scrape
    new Counter({
      name: 'cmrender_chromium_launches_total',
      help: 'Chromium launches: the first at start and every relaunch after a crash.',
      registers,
      collect() {
        this.reset();
        this.inc(renderer()?.chromiumLaunches ?? 0);
      },
    });
    new Counter({
      name: 'cmrender_page_crashes_total',
      help: 'Drawing pages that crashed (each is replaced by a fresh one).',
      registers,
      collect() {
        this.reset();
        this.inc(renderer()?.pageCrashes ?? 0);
      },
    });
  }

  /** A job ended (ready or error); a ready one's time from start to output is observed. */
  jobEnded(rec: JobRecord): void {
    this.ended.inc({ kind: rec.kind, status: rec.status });
    if (rec.status === 'ready' && rec.started_at !== undefined && rec.completed_at !== undefined)
      this.renderSeconds.observe({ kind: rec.kind }, (rec.completed_at - rec.started_at) / 1000);
  }

  /** Counts what running items does in this process: its pieces of work, the jobs it ends, the frames it draws. */
  watch(events: EventEmitter<JobEvents>): void {
    events.on('part', (e) => {
      this.workerRenders.inc({ kind: e.kind, part: e.part, status: e.status });
      if (e.status === 'ready') this.drawn(e.kind, e.frames, e.timings);
    });
    events.on('ended', (rec) => this.jobEnded(rec));
  }

  webhookAttempt(outcome: WebhookOutcome): void {
    this.webhooks.inc({ outcome });
  }

  /** Frames drawn into a kept output (or segment), and where their time went (`<stage>_ms` timings). */
  drawn(kind: string, frames: number, timings: Record<string, unknown>): void {
    this.frames.inc({ kind }, frames);
    for (const [key, ms] of Object.entries(timings)) {
      // render_ms is the sum of the page stages, not a stage of its own
      if (key === 'render_ms' || !key.endsWith('_ms') || typeof ms !== 'number') continue;
      this.stageSeconds.observe({ kind, stage: key.slice(0, -3) }, ms / 1000);
    }
  }
}
