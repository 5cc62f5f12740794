// Entry point (`npm start`): reads the configuration, starts the warm renderer and the HTTP server.
// SIGTERM/SIGINT: graceful stop (no more sweeps, JobService.shutdown), exit 0.
import pino from 'pino';
import { loadConfig } from './config.js';
import { buildApp } from './app.js';
import { ChromiumRenderer } from '../render/renderer.js';
import { RendererByKind } from '../render/by-kind.js';
import { ExportRenderer } from '../export/export-renderer.js';

const config = loadConfig();
const log = pino({ level: config.logLevel });
const chromium = new ChromiumRenderer({
  chromiumPath: config.chromiumPath,
  ffmpegPath: config.ffmpegPath,
  concurrency: config.renderConcurrency,
  frameBudgetMs: config.frameBudgetMs,
  log,
});
// drawn kinds go to the page, mesh and vectorize to the export worker threads
const exporter = new ExportRenderer({ log, maxIdle: config.renderConcurrency });
const renderer = new RendererByKind({
  frame: chromium,
  video: chromium,
  gif: chromium,
  mesh: exporter,
  vectorize: exporter,
});
const app = await buildApp({ config, renderer, logger: log });
const address = await app.listen({ port: config.port, host: config.host });
log.info({ address, data_dir: config.dataDir, concurrency: config.renderConcurrency }, 'cmrender listening');

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
