// Entry point of `npm run worker` (with REDIS_URL): a render worker, a warm Chromium and the same renderer as the
// service, taking jobs and chunks from the BullMQ queue; no API (with METRICS_PORT, a small HTTP server of its own:
// /metrics, /healthz, /readyz). SIGTERM/SIGINT: the jobs in hand get
// SHUTDOWN_GRACE_MS to finish, past it they are handed back to the queue for another worker; then exit 0. A killed
// worker's job goes to another worker after STALLED_INTERVAL_MS.
import pino from 'pino';
import { loadConfig } from '../config/settings.js';
import { configOrExit } from './startup-config.js';
import { buildRenderers } from './renderers.js';
import { openServices } from '../server/services.js';
import { loadStorage } from '../server/storage/data-stores.js';
import { WorkerMetrics } from '../server/metrics/worker-metrics.js';
import { startWorkerHttp, type WorkerHttp } from '../server/redis/worker-http.js';
import { rendererUnavailable, redisUnavailable, shuttingDown, starting } from '../contract/refusals.js';

const config = configOrExit(() => loadConfig(), 'cmrender worker');
const log = pino({ level: config.logLevel });
await loadStorage(config);
if (!config.redisUrl) {
  log.fatal('npm run worker needs REDIS_URL (the queue it takes work from)');
  process.exit(2);
}
const { renderer, joinSegments } = buildRenderers(config, log);
let metrics: WorkerMetrics | null = null;
let started = false;
let closing = false;
// liveness: only a renderer that cannot draw even after relaunches (a fresh process is the cure left)
const health = () => {
  const fault = renderer.fault?.() ?? null;
  return fault ? rendererUnavailable(fault) : null;
};
// up before Chromium's launch, so a probe sees "starting" rather than a refused connection
let http: WorkerHttp | null = null;
const services = await openServices({
  config,
  renderer,
  joinSegments,
  worker: true,
  log,
  onWebhookAttempt: (outcome) => metrics?.render.webhookAttempt(outcome),
}).catch((err: Error) => {
  // Redis or the bucket (STORAGE_URL) unreachable: one clear line
  log.fatal({ err }, `cmrender worker could not start: ${err.message}`);
  process.exit(1);
});
const queue = services.bullmq!;
metrics = config.metrics
  ? new WorkerMetrics({ renderer: () => renderer.counters?.(), inProgress: () => queue.inProgress })
  : null;
metrics?.watch(services.jobs.events);
if (config.metricsPort !== null)
  http = await startWorkerHttp({
    host: config.host,
    port: config.metricsPort,
    metrics,
    health,
    // readiness: why this worker takes no work now (starting, stopping, no renderer, no Redis)
    readiness: () =>
      closing ? shuttingDown() : !started ? starting() : (health() ?? (queue.consuming ? null : redisUnavailable())),
    requestTimeoutMs: config.requestTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
  }).catch((err: Error) => {
    log.fatal({ err }, `cmrender worker could not listen on METRICS_PORT ${config.metricsPort}: ${err.message}`);
    process.exit(1);
  });
await renderer.start().catch((err: Error) => {
  log.fatal({ err }, `cmrender worker could not start: ${err.message}`);
  process.exit(1);
});
await services.jobs.resume().catch(async (err: Error) => {
  log.fatal({ err }, `cmrender worker could not start: ${err.message}`);
  await renderer.close().catch(() => {});
  process.exit(1);
});
started = true;
log.info(
  {
    concurrency: config.renderConcurrency,
    data_dir: config.dataDir,
    storage: config.storageUrl,
    ...(http ? { metrics_address: http.address } : {}),
  },
  'cmrender worker ready',
);

for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    if (closing) return;
    closing = true;
    log.info({ signal: sig }, 'worker shutting down');
    const t = setTimeout(() => {
      log.error('worker shutdown did not finish in time');
      process.exit(1);
    }, config.shutdownGraceMs + 15_000);
    t.unref();
    // the items in hand get SHUTDOWN_GRACE_MS, then go back to the queue; a webhook delivery in flight is cut, not
    // counted: the next process to start resumes it
    services.jobs
      .shutdown(config.shutdownGraceMs)
      .then(() => services.close())
      .then(() => renderer.close())
      .then(() => http?.close())
      .then(
        () => process.exit(0),
        (err) => {
          log.error({ err }, 'worker shutdown failed');
          process.exit(1);
        },
      );
  });
}
