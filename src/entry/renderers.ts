// Composition root shared by `npm start` (server.ts) and `npm run worker` (worker.ts): the real renderers built
// from the configuration, the drawn kinds to the page and mesh/vectorize to the export worker threads, and the join
// of a chunked video's segments (the one ffmpeg module's).
import type { Logger } from 'pino';
import type { Config } from '../server/config.js';
import { ChromiumRenderer } from '../render/chromium-renderer.js';
import { RendererByKind } from '../render/by-kind.js';
import { segmentJoiner } from '../render/segment-join.js';
import { ExportRenderer } from '../export/export-renderer.js';

export function buildRenderers(config: Config, log: Logger) {
  const concurrency = Math.max(1, config.renderConcurrency);
  const chromium = new ChromiumRenderer({
    chromiumPath: config.chromiumPath,
    gl: config.renderGl,
    encoder: config.renderEncoder,
    ffmpegPath: config.ffmpegPath,
    concurrency,
    frameBudgetMs: config.frameBudgetMs,
    log,
  });
  const exporter = new ExportRenderer({ log, maxIdle: concurrency });
  const renderer = new RendererByKind({
    frame: chromium,
    video: chromium,
    gif: chromium,
    mesh: exporter,
    vectorize: exporter,
  });
  return { renderer, joinSegments: segmentJoiner(config.ffmpegPath) };
}
