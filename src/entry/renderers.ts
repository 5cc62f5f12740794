// Composition root shared by `npm start` (server.ts) and `npm run worker` (worker.ts): the real renderers built
// from the configuration, the drawn kinds to the page and mesh/vectorize to the export worker threads, and the join
// of a chunked video's segments (the one ffmpeg module's).
import type { Logger } from 'pino';
import type { Config } from '../config/settings.js';
import { ChromiumRenderer } from '../render/chromium-renderer.js';
import { RendererByKind } from '../render/by-kind.js';
import { segmentJoiner } from '../render/ffmpeg/join.js';
import { ChunkedVideos } from '../render/chunked-video.js';
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
  const joinSegments = segmentJoiner(config.ffmpegPath);
  // a long video rendered in one call (the runner, GET /test) is cut and joined as a queued job's items are
  return { renderer: new ChunkedVideos(renderer, joinSegments), joinSegments };
}
