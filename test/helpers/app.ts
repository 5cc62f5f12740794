// Shared test helpers: a started app on a temporary DATA_DIR, a fake renderer for HTTP-shape tests, job polling.
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp, type BuildOptions } from '../../src/server/app.js';
import { defaultConfig, type Config } from '../../src/config/settings.js';
import { ChromiumRenderer, type ChromiumRendererOptions } from '../../src/render/chromium-renderer.js';
import { RendererByKind } from '../../src/render/by-kind.js';
import { ExportRenderer } from '../../src/export/export-renderer.js';
import type { JobStore } from '../../src/server/jobs/store/port.js';
import type { JobService } from '../../src/server/jobs/job-service.js';
import { LocalQueue } from '../../src/server/jobs/queue/local.js';
import type { FairOrder } from '../../src/server/jobs/queue/fair-order.js';
import { encodePng } from '../../src/render/png.js';
import {
  JobFailure,
  type Renderer,
  type RenderHooks,
  type RenderJob,
  type RenderOutcome,
} from '../../src/render/renderer-port.js';

import { repoRoot, sharedDir, ownExamplesDir, hasCorpus, corpusSkip } from './shared.js';
import { testGl } from './gl.js';
export { repoRoot, sharedDir, hasCorpus, corpusSkip };
/** A source of the corpus (../shared/examples): only in tests that skip with corpusSkip(…) when it is absent. */
export const example = (name: string) => readFileSync(join(sharedDir, 'examples', name), 'utf8');
/** An image of the corpus (../shared/examples/img): same rule as example(). */
export const exampleImage = (name: string) => readFileSync(join(sharedDir, 'examples', 'img', name));
/** One of our own examples (examples/ of this repository): always present. */
export const ownExample = (name: string) => readFileSync(join(ownExamplesDir, name), 'utf8');
/** An image shipped with our own examples (examples/img). */
export const ownExampleImage = (name: string) => readFileSync(join(ownExamplesDir, 'img', name));

export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export interface TestApp {
  app: FastifyInstance;
  dataDir: string;
  close(): Promise<void>;
}

export async function startApp(opts: {
  renderer: Renderer;
  config?: Partial<Config>;
  now?: () => number;
  ownsRenderer?: boolean;
  store?: JobStore;
}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-test-'));
  // one render slot whatever the machine's cores (the default grows with them): tests of the queue count on it; no
  // render cache unless a test is about it, so a test that renders the same request twice renders it twice
  const config: Config = {
    ...defaultConfig(),
    dataDir,
    logLevel: 'silent',
    renderConcurrency: 1,
    renderCache: false,
    ...opts.config,
  };
  const b: BuildOptions = {
    config,
    renderer: opts.renderer,
    logger: silentLog,
    now: opts.now,
    ownsRenderer: opts.ownsRenderer,
    store: opts.store,
  };
  const app = await buildApp(b);
  await app.ready();
  return {
    app,
    dataDir,
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The real renderer (warm Chromium, the built viewer, ffmpeg). */
export function realRenderer(
  concurrency = 1,
  options: Partial<
    Pick<ChromiumRendererOptions, 'videoReadback' | 'videoPages' | 'frameBudgetMs' | 'partialRedraw' | 'gl'>
  > = {},
): ChromiumRenderer {
  return new ChromiumRenderer({
    chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    ffmpegPath: process.env.FFMPEG_PATH,
    log: silentLog,
    concurrency,
    gl: testGl,
    ...options,
  });
}

/** Mesh and vectorize as the service runs them (worker threads), without a browser. */
export function exportRenderer(): ExportRenderer {
  return new ExportRenderer({ log: silentLog });
}

/** Every kind as src/entry/server.ts composes them: the page for frame, video and gif, the export worker for the rest. */
export function fullRenderer(concurrency = 1): RendererByKind {
  const chromium = realRenderer(concurrency);
  const exporter = exportRenderer();
  return new RendererByKind({ frame: chromium, video: chromium, gif: chromium, mesh: exporter, vectorize: exporter });
}

export type FakeBehaviour = (job: RenderJob, hooks: RenderHooks) => Promise<void> | void;

/**
 * A renderer for tests about HTTP shape only: it writes a small real PNG (frame) or a fixed byte pattern (video) and
 * can be told to wait, fail or hang. Every rendering assertion uses the real renderer instead.
 */
export class FakeRenderer implements Renderer {
  calls: RenderJob[] = [];
  behaviour: FakeBehaviour | null = null;
  started = false;
  closed = false;
  async start() {
    this.started = true;
  }
  async close() {
    this.closed = true;
  }
  async render(job: RenderJob, hooks: RenderHooks): Promise<RenderOutcome> {
    this.calls.push(job);
    if (this.behaviour) await this.behaviour(job, hooks);
    const w = job.params.width ?? 32;
    const h = job.params.height ?? 16;
    const bytes =
      job.kind === 'frame'
        ? encodePng(new Uint8Array(w * h * 4).fill(200), w, h)
        : Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251));
    await writeFile(job.outPath, bytes);
    return { width: w, height: h, runner: '0.0.3', frames: 1, timings: { compile_ms: 0, render_ms: 0, encode_ms: 0 } };
  }
}

export { JobFailure };

/** A promise with its resolve exposed. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A multipart/form-data body from parts (a part with a filename is a file). */
export function multipart(parts: { name: string; filename?: string; type?: string; data: Buffer | string }[]) {
  const boundary = '----cmrender-test-boundary-7f3a9c';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined)
      head += `; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}`;
    chunks.push(
      Buffer.from(head + '\r\n\r\n'),
      Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The job service of an app started without REDIS_URL (its options, for tests that reach into them). */
export function embeddedJobs(app: FastifyInstance): JobService {
  if (!(app.jobs.queue instanceof LocalQueue)) throw new Error('not the embedded job service');
  return app.jobs;
}

/** The local queue's line of an app started without REDIS_URL, for tests that wait on it or count it. */
export function embeddedLine(app: FastifyInstance): FairOrder {
  const queue = embeddedJobs(app).queue;
  if (!(queue instanceof LocalQueue)) throw new Error('not the embedded job service');
  return queue.line;
}
