// buildApp(opts): the Fastify instance with every route of the contract. Tests use it with app.inject or listen(0).
import Fastify, { LogController, type FastifyInstance, type FastifyError, type FastifyReply } from 'fastify';
import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import pino, { type Logger } from 'pino';
import { join } from 'node:path';
import type { Config } from './config.js';
import { LIMITS } from '../contract/limits.js';
import { HttpError } from './schemas.js';
import type { JobStore } from './jobs/store.js';
import { Gate } from './durability/admission.js';
import type { JobService } from './jobs/job-service.js';
import type { Retention } from './jobs/retention.js';
import type { OutputStore } from './outputs/output-store.js';
import type { AssetStore } from './asset-store.js';
import { openServices } from './services.js';
import { buildOpenApi } from './openapi.js';
import type { Renderer } from '../render/types.js';
import { jobRoutes } from './routes/jobs.js';
import { outputRoutes } from './routes/outputs.js';
import { metaRoutes } from './routes/meta.js';
import { checkRoutes } from './routes/check.js';
import { assetRoutes } from './routes/assets.js';

export interface BuildOptions {
  config: Config;
  renderer: Renderer;
  /** Job records; default: the durable journal in DATA_DIR (jobs.journal), closed with the app. */
  store?: JobStore;
  logger?: Logger;
  /** Close the renderer when the app closes (default true). */
  ownsRenderer?: boolean;
  /** Clock (tests move it to check retention). */
  now?: () => number;
}

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobService;
    outputs: OutputStore;
    retention: Retention;
    assetStore: AssetStore;
  }
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': '*',
  'access-control-allow-methods': '*',
  'access-control-expose-headers': '*',
} as const;

/** type/subtype at the start of a content-type header (RFC 9110 token characters). */
const MEDIA_TYPE = /^\s*[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+\s*(;|$)/;

function parseJsonBody(_req: unknown, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    done(null, JSON.parse(text));
  } catch {
    done(new HttpError(400, 'bad_json', 'request body is not valid JSON'));
  }
}

export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  const { config, renderer } = opts;
  const log = opts.logger ?? pino({ level: config.logLevel });
  const app = Fastify({
    loggerInstance: log,
    bodyLimit: LIMITS.bodyMaxBytes,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 4096 },
    // a URL the router cannot decode (`/%zz`) or a path parameter over maxParamLength: 400 ErrorEnvelope, CORS-open
    frameworkErrors: (err, _req, res) => {
      const reply = res as unknown as FastifyReply;
      reply.headers(CORS_HEADERS);
      if ((err as FastifyError).code === 'FST_ERR_MAX_PARAM_LENGTH') return reply.code(404).send({ error: 'not_found' });
      return reply.code(400).send({ error: 'the request URL is malformed', code: 'bad_url' });
    },
  }) as unknown as FastifyInstance;

  const services = await openServices({ config, renderer, store: opts.store, log, now: opts.now });
  const { jobs, outputs, assets } = services;
  app.decorate('jobs', jobs);
  app.decorate('outputs', outputs);
  app.decorate('retention', services.retention);
  app.decorate('assetStore', assets);

  // Open CORS on every answer: routes, errors, 404s and preflights.
  app.addHook('onRequest', async (req, reply) => {
    reply.headers(CORS_HEADERS);
    // JSON is parsed whatever the content-type: an empty or unparsable header is treated like a missing one
    // (Fastify would answer 415 before our catch-all parser runs).
    const ct = req.headers['content-type'];
    if (ct !== undefined && !MEDIA_TYPE.test(ct)) delete req.headers['content-type'];
  });
  app.addHook('onResponse', async (req, reply) => {
    req.log.debug({ method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });
  await app.register(cors, { origin: '*', methods: '*', allowedHeaders: '*', exposedHeaders: '*', strictPreflight: false, maxAge: 86400 });

  // JSON is parsed whatever the content-type (curl -d sends form encoding).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJsonBody);
  await app.register(multipart, { limits: { files: LIMITS.assets.maxFiles, fileSize: LIMITS.assets.maxFileBytes } });

  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    reply.headers(CORS_HEADERS);
    if (err instanceof HttpError) return reply.code(err.status).send(err.body());
    const code = (err as FastifyError).code;
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(400).send({ error: `request body is larger than ${LIMITS.bodyMaxBytes} bytes`, code: 'body_too_large' });
    if (code === 'FST_REQ_FILE_TOO_LARGE') return reply.code(400).send({ error: `a file is larger than ${LIMITS.assets.maxFileBytes} bytes`, code: 'file_too_large' });
    if (code === 'FST_FILES_LIMIT') return reply.code(400).send({ error: `at most ${LIMITS.assets.maxFiles} files per upload`, code: 'too_many_files' });
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
      return reply.code(400).send({ error: 'malformed multipart/form-data body', code: 'bad_multipart' });
    const status = (err as FastifyError).statusCode ?? 500;
    if (status === 404) return reply.code(404).send({ error: 'not_found' });
    if (status >= 400 && status < 500) return reply.code(status).send({ error: err.message });
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: 'internal_error' });
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).headers(CORS_HEADERS).send({ error: 'not_found' }));

  const openapi = buildOpenApi();
  await app.register(swagger, { mode: 'static', specification: { document: openapi as never } });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: false } });

  jobRoutes(app, jobs, assets);
  outputRoutes(app, outputs);
  metaRoutes(app, jobs, openapi, join(config.dataDir, 'tmp'));
  checkRoutes(app);
  assetRoutes(app, assets, new Gate(config.maxConcurrentUploads));

  app.addHook('onReady', async () => {
    await renderer.start();
    // jobs that were pending when the service last stopped render again, before any new one
    jobs.resume();
  });
  app.addHook('onClose', async () => {
    await services.close();
    if (opts.ownsRenderer !== false) await renderer.close();
  });
  return app;
}
