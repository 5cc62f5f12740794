// Entry point (`npm start`): reads the configuration, starts the HTTP server and then the warm renderer (/readyz is
// 503 `starting` until it is warm; job POSTs are taken meanwhile and wait in the queue). SIGTERM/SIGINT: graceful
// stop: /readyz and new job POSTs answer 503 `shutting_down` at once, the jobs in hand finish within
// SHUTDOWN_GRACE_MS (or are checkpointed), then exit 0.
//
// Start-up says where its time goes: each phase is logged with its milliseconds (`start_phase`), and one line says
// `cmrender ready in N ms` (from the process's start). Chromium's launch (and its GL probe) begins at once, beside
// the journal's recovery and the listen, since it needs neither.
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { loadConfig } from '../config/settings.js';
import { configOrExit } from './startup-config.js';
import { buildApp } from '../server/app.js';
import { buildRenderers } from './renderers.js';
import { loadStorage } from '../server/storage/data-stores.js';
import { boundAddress } from '../server/http/bound-address.js';
import { logDestination } from './log-lines.js';

const config = configOrExit(() => loadConfig(), 'cmrender');
// JSON lines to a pipe or a file; readable lines on a terminal (log-lines.ts)
const log = pino({ level: config.logLevel }, logDestination());
const phases: Record<string, number> = { load: Math.round(performance.now()) };
let mark = performance.now();
/** Logs a phase's time and returns the phase's value. */
async function phase<T>(name: string, work: Promise<T>): Promise<T> {
  const value = await work;
  const now = performance.now();
  phases[name] = Math.round(now - mark);
  mark = now;
  log.info({ phase: name, ms: phases[name], event: 'start_phase' }, `start: ${name} ${phases[name]} ms`);
  return value;
}
log.info({ phase: 'load', ms: phases.load, event: 'start_phase' }, `start: load ${phases.load} ms`);
await phase('storage', loadStorage(config));
const { renderer, joinSegments } = buildRenderers(config, log);
// with REDIS_URL this process renders too (it takes work from the shared queue beside its API) unless
// RENDER_CONCURRENCY=0
const renders = !config.redisUrl || config.renderConcurrency > 0;
// Chromium launches now, while the services open and the server starts listening; its failure is the start's
// (awaited by warmUp below), never an unhandled rejection before that
const rendererStarted = renders ? renderer.start() : Promise.resolve();
rendererStarted.catch(() => {});
const { app, address } = await (async () => {
  try {
    const app = await phase(
      'services',
      buildApp({
        config,
        renderer,
        logger: log,
        joinSegments,
        startRenderer: renders,
        rendererStarted,
        // listen first: while Chromium launches, /readyz says 503 starting (and /healthz ok, job POSTs are queued)
        // instead of refusing connections
        warmLater: true,
      }),
    );
    await phase('listen', app.listen({ port: config.port, host: config.host }));
    const address = boundAddress(app.server);
    log.info({ address }, 'cmrender warming up');
    await phase('renderer', app.warmUp());
    return { app, address };
  } catch (err) {
    // e.g. RENDER_GL=egl on a machine whose EGL cannot draw, Redis or the bucket (STORAGE_URL) unreachable: one
    // clear line, not a stack
    log.fatal({ err }, `cmrender could not start: ${(err as Error).message}`);
    await renderer.close().catch(() => {});
    process.exit(1);
  }
})();
const readyMs = Math.round(performance.now());
log.info({ address, ready_ms: readyMs, phases, event: 'ready' }, `cmrender ready in ${readyMs} ms`);
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
