// buildApp(opts): the Fastify instance with every route of the contract. Tests use it with app.inject or listen(0).
import { idempotencyTtl } from './jobs/idempotency.js';
import { serverTimeouts } from './http/server-timeouts.js';
import { capConnections } from './http/connection-cap.js';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import pino, { type Logger } from 'pino';
import { join } from 'node:path';
import type { Config } from '../config/settings.js';
import { LIMITS } from '../contract/limits.js';
import type { Renderer } from '../render/renderer-port.js';
import type { JoinSegments } from '../render/renderer-port.js';
import type { JobStore } from './jobs/store/port.js';
import type { JobService } from './jobs/job-service.js';
import type { Retention } from './jobs/retention.js';
import type { OutputStore } from './storage/output-store.js';
import type { AssetStore } from './storage/asset-store.js';
import { Gate } from './http/gate.js';
import { openServices } from './services.js';
import { registerOpenApi } from './openapi.js';
import { acceptJsonBodies } from './http/json-body.js';
import { limitRequestTime } from './http/request-timeout.js';
import { requestError } from './http/request-error.js';
import { answerError, answerFrameworkError, answerNotFound } from './http/error-answers.js';
import { openCors } from './http/cors.js';
import { answerOwnHostOnly } from './http/own-host.js';
import { logRequests, requestId } from './http/request-log.js';
import { enqueueRoutes } from './routes/enqueue.js';
import { jobStatusRoutes } from './routes/job-status.js';
import { jobEventRoutes } from './routes/job-events.js';
import { batchRoutes } from './routes/batches.js';
import { outputRoutes } from './routes/outputs.js';
import { healthRoutes } from './routes/health.js';
import { apiDocumentRoutes } from './routes/api-documents.js';
import { smokeTestRoutes } from './routes/smoke-test.js';
import { checkRoutes } from './routes/check.js';
import { diagnosticRoutes } from './routes/diagnostics.js';
import { languageDocRoutes } from './routes/language-docs.js';
import { assetRoutes } from './routes/assets.js';
import { pageRoutes } from './routes/pages.js';
import { metricsRoutes } from './routes/metrics.js';
import { mcpRoutes } from './routes/mcp.js';
import { ClientQuota } from './jobs/client-quota.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import type { WebhookOutcome } from './webhooks/dispatcher.js';
import { countRefusedJobs } from './routes/refused-jobs.js';
import { watchReadiness } from './routes/readiness.js';
import { ApiKeys, requireApiKeys } from './http/api-keys.js';
import { limitPosts } from './http/rate-limits.js';
import { editorDistDir } from '../paths.js';

export interface BuildOptions {
  config: Config;
  renderer: Renderer;
  /** joins a chunked video's segments (default: ffmpeg's, from FFMPEG_PATH) */
  joinSegments?: JoinSegments;
  /** Job records; default: the durable journal in DATA_DIR (jobs.journal), closed with the app. */
  store?: JobStore;
  logger?: Logger;
  /** Start the renderer when the app is ready (default true; false: an API with REDIS_URL that renders nothing). */
  startRenderer?: boolean;
  /** Close the renderer when the app closes (default true). */
  ownsRenderer?: boolean;
  /** Clock (tests move it to check retention). */
  now?: () => number;
  /**
   * Leave the renderer's start to `app.warmUp()` (src/entry/server.ts calls it once listening, so /readyz can say "starting" while
   * Chromium launches); default false: the renderer starts when the app is ready.
   */
  warmLater?: boolean;
  /**
   * The renderer's start, begun by the caller before the app was built (src/entry/server.ts launches Chromium beside
   * the services' recovery): warmUp awaits it instead of starting the renderer again.
   */
  rendererStarted?: Promise<void>;
  /** Answer only requests whose Host is the address and port the server bound (`cmrender open`: http/own-host.ts). */
  ownHostOnly?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobService;
    outputs: OutputStore;
    retention: Retention;
    assetStore: AssetStore;
    /** null with METRICS=off */
    metrics: ServiceMetrics | null;
    /**
     * Starts the renderer and the recovered jobs; until it resolves /readyz answers 503 `starting`, and job POSTs are
     * taken and wait in the queue.
     */
    warmUp(): Promise<void>;
  }
}

export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  const { config, renderer } = opts;
  const log = opts.logger ?? pino({ level: config.logLevel });
  const app = Fastify({
    loggerInstance: log,
    bodyLimit: LIMITS.bodyMaxBytes,
    // a client that sends its request (headers and body) slowly is cut off: 408, the socket closed
    ...serverTimeouts(config.requestTimeoutMs, config.headersTimeoutMs),
    // Fastify's two lines per request give way to one of ours (http/request-log.ts), with the route and the id
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: requestId,
    trustProxy: false,
    // onReady starts the renderer (Chromium and its warm pages): on a busy 2-core machine that alone can pass
    // Fastify's 10 s default, and the process would exit before serving anything
    pluginTimeout: 120_000,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 4096 },
    // an undecodable URL, an over-long path parameter: answered before routing
    frameworkErrors: answerFrameworkError,
    // a request that fails its route's schema: the contract's code (missing_source, invalid_params, ...)
    schemaErrorFormatter: requestError,
  }) as unknown as FastifyInstance;
  // routes carry zod schemas: they validate requests and serialize answers (fastify-type-provider-zod)
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // a flood of idle connections cannot take the open files the work needs
  capConnections(app.server, config.maxConnections, log);

  let metrics: ServiceMetrics | null = null;
  // a delivery the last run left pending is resumed during openServices (its retry timer may fire while the start
  // still sweeps): its outcome waits here until the metrics exist, so every attempt is counted
  const earlyAttempts: WebhookOutcome[] = [];
  const services = await openServices({
    config,
    renderer,
    joinSegments: opts.joinSegments,
    store: opts.store,
    // an app that starts no renderer takes no work; otherwise the configuration says (services.ts)
    renders: opts.startRenderer === false ? false : undefined,
    log,
    now: opts.now,
    onWebhookAttempt: (outcome) => (metrics ? metrics.webhookAttempt(outcome) : earlyAttempts.push(outcome)),
  });
  const { jobs, outputs, assets } = services;
  if (config.metrics) {
    metrics = new ServiceMetrics({
      load: () => jobs.load(),
      outputs: () => outputs.usage(),
      // an API process that renders nothing (REDIS_URL, RENDER_CONCURRENCY=0) has no browser to count
      renderer: () => (opts.startRenderer === false ? undefined : renderer.counters?.()),
      extra: services.bullmq ? () => services.bullmq!.metrics() : undefined,
      webhooks: services.webhooks ? () => services.webhooks!.load() : undefined,
    });
    for (const outcome of earlyAttempts.splice(0)) metrics.webhookAttempt(outcome);
    metrics.watch(jobs.events);
  }
  app.decorate('metrics', metrics);
  app.decorate('jobs', jobs);
  app.decorate('outputs', outputs);
  app.decorate('retention', services.retention);
  app.decorate('assetStore', assets);

  logRequests(app);
  // before CORS: a rebound name gets no answer a page could read, not even a preflight's
  if (opts.ownHostOnly) answerOwnHostOnly(app);
  await openCors(app);

  // keys before the limits: a request without a valid key is turned away without spending anyone's budget
  requireApiKeys(app, ApiKeys.load(config.apiKeys), config.apiKeysReads);
  await limitPosts(app, { max: config.rateLimitPosts, windowMs: config.rateLimitWindowMs, redis: services.redis });
  limitRequestTime(app, config.requestTimeoutMs);
  acceptJsonBodies(app);
  await app.register(multipart, { limits: { files: LIMITS.assets.maxFiles, fileSize: LIMITS.assets.maxFileBytes } });
  app.setErrorHandler(answerError);
  app.setNotFoundHandler(answerNotFound);

  let warm = false;
  let warming: Promise<void> | null = null;
  app.decorate('warmUp', () => {
    warming ??= (async () => {
      if (opts.startRenderer !== false) await (opts.rendererStarted ?? renderer.start());
      // jobs that were pending when the service last stopped render again, before any new one
      await jobs.resume();
      warm = true;
    })();
    return warming;
  });

  await registerOpenApi(app);
  await watchReadiness(app, { jobs, warm: () => warm, maxEventLoopDelayMs: config.readyMaxEventLoopDelayMs });
  if (metrics) countRefusedJobs(app, metrics);

  // one client's places, whether its jobs came one by one or as a batch's rows
  const quota =
    config.maxQueuedJobsPerClient > 0 && !config.redisUrl
      ? new ClientQuota(config.maxQueuedJobsPerClient, jobs.events)
      : null;
  const door = { quota, assets, webhookPolicy: services.webhookPolicy, idempotency: services.idempotency };
  await app.register(enqueueRoutes, { jobs, ...door, idempotencyTtlMs: idempotencyTtl(config.retentionMs) });
  await app.register(batchRoutes, { batches: services.batches, ...door });
  await app.register(jobStatusRoutes, { jobs, keptMs: config.retentionMs });
  await app.register(jobEventRoutes, { jobs, keptMs: config.retentionMs });
  await app.register(outputRoutes, {
    outputs,
    presigned: config.storagePublicUrls === 'presigned',
    keptMs: config.retentionMs,
  });
  // in this order, the document's: /healthz, /openapi.json, /llms.txt, /test
  await app.register(healthRoutes, { jobs });
  await app.register(apiDocumentRoutes, {
    openapi: () => app.swagger() as Record<string, unknown>,
    keptMs: config.retentionMs,
  });
  await app.register(smokeTestRoutes, {
    jobs,
    tmpDir: join(config.dataDir, 'tmp'),
    tests: new Gate(config.testConcurrency),
  });
  await app.register(checkRoutes);
  await app.register(diagnosticRoutes);
  await app.register(languageDocRoutes, {
    openapi: () => app.swagger() as Record<string, unknown>,
    keptMs: config.retentionMs,
  });
  await app.register(assetRoutes, {
    assets,
    uploads: new Gate(config.maxConcurrentUploads),
    disk: services.disk,
    maxBodyBytes: config.uploadMaxBytes,
    keptMs: config.retentionMs,
  });
  await app.register(mcpRoutes, { jobs });
  await app.register(pageRoutes, { dir: editorDistDir });
  if (metrics) await app.register(metricsRoutes, { metrics });

  app.addHook('onReady', async () => {
    if (!opts.warmLater) await app.warmUp();
  });
  app.addHook('onClose', async () => {
    await services.close();
    if (opts.ownsRenderer !== false) await renderer.close();
  });
  return app;
}
