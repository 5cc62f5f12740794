// The standalone runner (service.md "Standalone runner"): one synchronous endpoint, no jobs, no storage.
// `POST /` {source, kind: frame | video | gif, params, args?, assets?} answers 200 with the file's bytes; a bad request 400
// with the ErrorEnvelope (the service's own schemas and codes); a compile or render failure 500 {error, code}.
// `GET /healthz` answers `ok\n`. Renders go through the same Renderer as the service's jobs, at most `concurrency`
// at a time, each bounded by the job time limit; a request can fail, never stop the process.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { z } from 'zod';
import { LIMITS } from '../contract/limits.js';
import { CODE } from '../contract/error-codes.js';
import { OUTPUT_MIME, sniffImage } from '../contract/mime.js';
import { outputExtOf } from '../contract/outputs.js';
import { JobFailure, type Renderer, type RenderParams } from '../render/renderer-port.js';
import { failureOf } from '../render/failure-reasons.js';
import { deadline } from '../contract/deadline.js';
import { FrameParams, GifParams, RenderParams as VideoParams } from '../server/http/schemas/params.js';
import { Source } from '../server/http/schemas/sources.js';
import { acceptJsonBodies } from '../server/http/json-body.js';
import { requestError } from '../server/http/request-error.js';
import { answerError, answerFrameworkError, answerNotFound } from '../server/http/error-answers.js';
import { capConnections } from '../server/http/connection-cap.js';
import { serverTimeouts } from '../server/http/server-timeouts.js';
import { limitRequestTime } from '../server/http/request-timeout.js';
import { Refused, tooManyUploads } from '../contract/refusals.js';
import { Gate } from '../server/http/gate.js';
import { badRequest } from '../server/http/http-error.js';
import { Args } from '../server/http/schemas/args.js';
import { checkedSceneArgs } from '../server/jobs/scene-args.js';

export interface RunnerOptions {
  renderer: Renderer;
  log: Logger;
  /** renders at the same time (RENDER_CONCURRENCY) */
  concurrency: number;
  /** wall-clock limit of one render (JOB_TIMEOUT_MS) */
  timeoutMs: number;
  /** where a render's inputs and output live while the request runs */
  tmpDir: string;
  /** time limits to receive a request and its headers (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS) */
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** requests with a large body (inline assets) received or held at once (MAX_CONCURRENT_UPLOADS) */
  maxLargeBodies?: number;
  /** connections held at once (MAX_CONNECTIONS; 0, the default: the open-file limit less a reserve) */
  maxConnections?: number;
}

const KIND = z.enum(['frame', 'video', 'gif'], { error: 'kind must be "frame", "video" or "gif"' });
const PARAMS_OF = { frame: FrameParams, video: VideoParams, gif: GifParams } as const;

const ASSETS = `assets must be an object mapping in-source paths to images as base64 (or data: URLs), at most ${LIMITS.assets.maxFiles}`;
/** No asset store here: an image travels inline, as base64 or a data: URL, at most the service's upload size. */
const RunnerAssets = z
  .record(
    z.string().min(1, { error: ASSETS }),
    z.string({ error: ASSETS }).max(Math.ceil(LIMITS.assets.maxFileBytes / 3) * 4 + 64, {
      error: `an asset is larger than ${LIMITS.assets.maxFileBytes} bytes`,
    }),
    { error: ASSETS },
  )
  .refine((m) => Object.keys(m).length <= LIMITS.assets.maxFiles, { error: ASSETS })
  .optional();

export const RunnerRequest = z.object({
  source: Source,
  kind: KIND,
  params: z.unknown().optional(),
  args: Args,
  assets: RunnerAssets,
});

const REQUEST_TIMEOUT_MS = 60_000;
const HEADERS_TIMEOUT_MS = 10_000;
const MAX_LARGE_BODIES = 4;

/** Body limit: the largest source plus every asset inline. */
const BODY_MAX_BYTES = LIMITS.bodyMaxBytes + LIMITS.assets.maxFiles * Math.ceil(LIMITS.assets.maxFileBytes / 3) * 4;

export async function buildRunnerApp(o: RunnerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: o.log,
    bodyLimit: BODY_MAX_BYTES,
    // the same doors as the service: slow headers or bodies are cut off (408)
    ...serverTimeouts(o.requestTimeoutMs ?? REQUEST_TIMEOUT_MS, o.headersTimeoutMs ?? HEADERS_TIMEOUT_MS),
    // onReady starts the renderer (Chromium and its warm pages): on a busy 2-core machine that alone can pass
    // Fastify's 10 s default, and the process would exit before serving anything
    pluginTimeout: 120_000,
    logController: new LogController({ disableRequestLogging: true }),
    frameworkErrors: answerFrameworkError,
    schemaErrorFormatter: requestError,
  }) as unknown as FastifyInstance;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  capConnections(app.server, o.maxConnections ?? 0, o.log);
  acceptJsonBodies(app);
  app.setErrorHandler(answerError);
  app.setNotFoundHandler(answerNotFound);
  limitRequestTime(app, o.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  // A body with inline assets is parsed whole in memory (up to BODY_MAX_BYTES, ~330 MB): only a few at once, the
  // rest refused before their bytes are read (503 too_many_uploads), as the service's uploads are
  const large = new Gate(o.maxLargeBodies ?? MAX_LARGE_BODIES);
  app.addHook('onRequest', async (req, reply) => {
    const length = Number(req.headers['content-length'] ?? NaN);
    if (req.method !== 'POST' || length <= LIMITS.bodyMaxBytes) return;
    // refused before its body is read: the connection closes rather than drain hundreds of megabytes
    if (!large.tryEnter()) {
      reply.header('connection', 'close');
      throw new Refused(tooManyUploads(large.max));
    }
    let left = false;
    const leave = () => {
      if (!left) large.leave();
      left = true;
    };
    reply.raw.once('close', leave);
    reply.raw.once('finish', leave);
  });
  await mkdir(o.tmpDir, { recursive: true });
  const queue = new PQueue({ concurrency: o.concurrency });

  app.get('/healthz', async (_req, reply) => reply.type('text/plain; charset=utf-8').send('ok\n'));

  app.withTypeProvider<ZodTypeProvider>().post('/', { schema: { body: RunnerRequest } }, async (req, reply) => {
    const { source, kind } = req.body;
    const parsed = PARAMS_OF[kind].safeParse(req.body.params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      // the service's code for transparency asked of an output without alpha (request-error.ts)
      const noAlpha = issue?.code === 'custom' && issue.path[0] === 'transparent';
      throw badRequest(noAlpha ? CODE.no_alpha : CODE.invalid_params, issue?.message ?? 'invalid params');
    }
    const params: RenderParams = { ...parsed.data };
    const args = req.body.args;
    // args that do not fit the scene: the service's 400 invalid_args, one entry per problem, before anything renders
    if (args !== undefined) checkedSceneArgs(source, args);
    const dir = await mkdtemp(join(o.tmpDir, 'run-'));
    try {
      const assets = await writeAssets(dir, req.body.assets ?? {});
      const id = randomUUID();
      const ext = outputExtOf(kind, params);
      const outPath = join(dir, `${id}.${ext}`);
      try {
        await queue.add(() =>
          renderWithin(o, { id, kind, source, params, ...(args ? { args } : {}), assets, outPath }),
        );
      } catch (err) {
        const f = failureBody(err, o.timeoutMs);
        if (!(err instanceof JobFailure)) req.log.warn({ err }, 'runner render failed');
        return reply.code(500).send(f);
      }
      const bytes = await readFile(outPath);
      return reply.code(200).type(OUTPUT_MIME[ext]).header('cache-control', 'no-store').send(bytes);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  app.addHook('onReady', async () => {
    await o.renderer.start();
  });
  app.addHook('onClose', async () => {
    queue.clear();
    await o.renderer.close();
  });
  return app;
}

/** Each inline asset as a file, checked by its bytes like an upload (400 not_an_image). */
async function writeAssets(dir: string, assets: Record<string, string>): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  let n = 0;
  for (const [path, text] of Object.entries(assets)) {
    const b64 = text.replace(/^data:[\w.+/-]+;base64,/, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw badRequest(CODE.invalid_assets, `assets["${path}"] is not base64`);
    const bytes = Buffer.from(b64, 'base64');
    if (!sniffImage(bytes))
      throw badRequest(CODE.not_an_image, `assets["${path}"] is not a PNG, JPEG, WebP, GIF or SVG image`);
    const file = join(dir, `asset-${n++}`);
    await writeFile(file, bytes);
    files[path] = file;
  }
  return files;
}

/** One render under the time limit: past it the renderer is aborted (it frees its page and encoder). */
async function renderWithin(o: RunnerOptions, job: Parameters<Renderer['render']>[0]): Promise<void> {
  const ctl = new AbortController();
  const limit = deadline(ctl, o.timeoutMs);
  try {
    await o.renderer.render(job, { signal: ctl.signal });
  } catch (err) {
    if (limit.timedOut) throw new TimedOut();
    throw err;
  } finally {
    limit.clear();
  }
}

class TimedOut extends Error {}

/** The 500 body: the one failureOf's end (a diagnostic code or a registered one); internal detail stays in the log. */
function failureBody(err: unknown, timeoutMs: number): { error: string; code: string; diagnostics?: unknown[] } {
  const end = failureOf(err, { timedOut: err instanceof TimedOut, limitMs: timeoutMs });
  return end.diagnostics
    ? { error: end.message, code: end.code, diagnostics: end.diagnostics }
    : { error: end.message, code: end.code };
}
