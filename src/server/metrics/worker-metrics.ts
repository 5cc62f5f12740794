// A Redis-mode render worker's Prometheus metrics (`npm run worker` with METRICS_PORT): it has no API, so it serves
// its own. The render series are RenderMetrics', the same names the API and the embedded service use; Node's
// process metrics keep their usual names.
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventEmitter } from 'node:events';
import type { RendererCounters } from '../../render/renderer-port.js';
import type { JobEvents } from '../jobs/job-service.js';
import { RenderMetrics } from './render-metrics.js';

export class WorkerMetrics {
  readonly registry = new Registry();
  readonly render: RenderMetrics;

  constructor(sources: { renderer(): RendererCounters | undefined; inProgress(): number }) {
    this.render = new RenderMetrics(this.registry, () => sources.renderer());
    new Gauge({
      name: 'cmrender_worker_renders_in_progress',
      help: 'Queue jobs (jobs, chunks, joins) this worker has in hand now (at most RENDER_CONCURRENCY).',
      registers: [this.registry],
      collect() {
        this.set(sources.inProgress());
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  watch(events: EventEmitter<JobEvents>): void {
    this.render.watch(events);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
