// Entry point (`npm start`): reads the configuration, starts the HTTP server and then the warm renderer (/readyz is
// 503 `starting` until it is warm). SIGTERM/SIGINT: graceful stop: /readyz and new job POSTs answer 503
// `shutting_down` at once, the jobs in hand finish within SHUTDOWN_GRACE_MS (or are checkpointed), then exit 0.
import pino from 'pino';
import { loadConfig } from '../server/config.js';
import { buildApp } from '../server/app.js';
import { buildRenderers } from './renderers.js';
import { loadStorage } from '../server/storage/data-stores.js';

const config = loadConfig();
const log = pino({ level: config.logLevel });
await loadStorage(config);
const { renderer, joinSegments } = buildRenderers(config, log);
// with REDIS_URL this process renders too (it takes work from the shared queue beside its API) unless
// RENDER_CONCURRENCY=0
const renders = !config.redisUrl || config.renderConcurrency > 0;
const { app, address } = await (async () => {
  try {
    const app = await buildApp({
      config,
      renderer,
      logger: log,
      joinSegments,
      startRenderer: renders,
      // listen first: while Chromium launches, /readyz says 503 starting (and /healthz ok) instead of refusing
      // connections
      warmLater: true,
    });
    const at = await app.listen({ port: config.port, host: config.host });
    log.info({ address: at }, 'cmrender warming up');
    await app.warmUp();
    return { app, address: at };
  } catch (err) {
    // e.g. RENDER_GL=egl on a machine whose EGL cannot draw, Redis or the bucket (STORAGE_URL) unreachable: one
    // clear line, not a stack
    log.fatal({ err }, `cmrender could not start: ${(err as Error).message}`);
    await renderer.close().catch(() => {});
    process.exit(1);
  }
})();
log.info(
  {
    address,
    data_dir: config.dataDir,
    storage: config.storageUrl,
    concurrency: config.renderConcurrency,
    redis: Boolean(config.redisUrl),
  },
  'cmrender listening',
);

let closing = false;
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    if (closing) return;
    closing = true;
    // stop taking jobs (503 shutting_down), let the job in hand finish within SHUTDOWN_GRACE_MS or checkpoint it
    // (pending again for the next start), then close the server, the browser and the job journal
    log.info({ signal: sig, grace_ms: config.shutdownGraceMs }, 'shutting down');
    const t = setTimeout(() => {
      log.error('shutdown did not finish in time');
      process.exit(1);
    }, config.shutdownGraceMs + 15_000);
    t.unref();
    app.retention.stop();
    app.jobs
      .shutdown(config.shutdownGraceMs)
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (err) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  });
}
