// Entry point of the standalone runner (`npm run runner`): the service's configuration (HOST, limits, Chromium,
// ffmpeg, RENDER_CONCURRENCY, JOB_TIMEOUT_MS) with its own port, PORT defaulting to 8080, and the same renderer.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import pino from 'pino';
import { loadConfig, RUNNER_SETTINGS } from '../config/settings.js';
import { configOrExit } from './startup-config.js';
import { ChromiumRenderer } from '../render/chromium-renderer.js';
import { ChunkedVideos } from '../render/chunked-video.js';
import { segmentJoiner } from '../render/ffmpeg/join.js';
import { buildRunnerApp } from '../runner/runner-app.js';

const config = configOrExit(() => loadConfig(process.env, RUNNER_SETTINGS), 'cmrender runner');
const log = pino({ level: config.logLevel });
// a long video is cut in chunks and joined above the renderer, as the service's are: the same bytes
const renderer = new ChunkedVideos(
  new ChromiumRenderer({
    chromiumPath: config.chromiumPath,
    gl: config.renderGl,
    encoder: config.renderEncoder,
    ffmpegPath: config.ffmpegPath,
    concurrency: config.renderConcurrency,
    log,
  }),
  segmentJoiner(config.ffmpegPath),
);
const app = await buildRunnerApp({
  renderer,
  log,
  concurrency: config.renderConcurrency,
  timeoutMs: config.jobTimeoutMs,
  tmpDir: join(tmpdir(), `cmrender-runner-${process.pid}`),
  requestTimeoutMs: config.requestTimeoutMs,
  headersTimeoutMs: config.headersTimeoutMs,
  maxLargeBodies: config.maxConcurrentUploads,
  maxConnections: config.maxConnections,
});

// A request may fail; it may not stop the runner. Anything that escapes a handler is logged and the process stays.
process.on('uncaughtException', (err) => log.error({ err }, 'uncaught exception (the runner keeps running)'));
process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection (the runner keeps running)'));

const address = await app.listen({ port: config.port, host: config.host }).catch((err: Error) => {
  log.fatal({ err }, `cmrender runner could not start: ${err.message}`);
  process.exit(1);
});
log.info({ address, pid: process.pid, event: 'runner_listening' }, 'cmrender runner listening');

for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.once(sig, () => {
    log.info({ signal: sig }, 'runner stopping');
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
