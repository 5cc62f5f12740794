// Composition root shared by `npm start` (server.ts), `npm run worker` (worker.ts) and `cmrender open`: the real
// renderers built from the configuration, the drawn kinds to the page and mesh/vectorize to the export worker
// threads, and the join of a chunked video's segments (the one ffmpeg module's).
import type { Logger } from 'pino';
import type { Config } from '../config/settings.js';
import { ChromiumRenderer } from '../render/chromium-renderer.js';
import { RendererByKind } from '../render/by-kind.js';
import { segmentJoiner } from '../render/ffmpeg/join.js';
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
  // a long video is cut by the queue (a chunk item per segment, then a join item), never inside one render: the
  // service's renderer is called for one range at a time, the join is the join item's
  return { renderer, joinSegments: segmentJoiner(config.ffmpegPath) };
}
