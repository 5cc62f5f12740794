// What the HTTP routes stand on: the job store, the output store, the asset store, the job service and retention,
// built from the configuration and started in the order recovery needs. No HTTP here.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Renderer } from '../render/renderer-port.js';
import type { JobStore } from './jobs/store.js';
import { JournalJobStore } from './jobs/journal-store.js';
import { JobService } from './jobs/job-service.js';
import { Retention } from './jobs/retention.js';
import type { OutputStore } from './storage/output-store.js';
import type { AssetStore } from './storage/asset-store.js';
import { rm } from 'node:fs/promises';
import { dataStores, loadStorage, openStorage, scratchRoot } from './storage/data-stores.js';
import { RenderCache } from './jobs/render-cache.js';
import { DiskSpace } from './storage/disk-space.js';
import { WebhookPolicy } from './webhooks/address-policy.js';
import { configuredDispatcher, type WebhookDispatcher, type WebhookOutcome } from './webhooks/dispatcher.js';
import { IdempotencyIndex, idempotencyTtl, type IdempotencyKeys } from './http/idempotency.js';
import type { Jobs } from './jobs/jobs-api.js';
import { RedisJobStore } from './redis/redis-store.js';
import { WorkQueue, connect, connectApi, waitReady } from './redis/work-queue.js';

/** How long an API process waits for Redis at start before it stops with a clear line. */
const REDIS_START_MS = 10_000;
import { RedisJobService } from './redis/redis-job-service.js';
import { RedisIdempotency } from './redis/redis-idempotency.js';
import type { Redis } from 'ioredis';

export interface ServiceOptions {
  config: Config;
  renderer: Renderer;
  /** job records; default: the durable journal in DATA_DIR (jobs.journal), closed with the services */
  store?: JobStore;
  log: Logger;
  now?: () => number;
  /** told of each webhook delivery attempt's outcome (the metrics) */
  onWebhookAttempt?: (outcome: WebhookOutcome) => void;
}

export interface Services {
  jobs: Jobs;
  outputs: OutputStore;
  assets: AssetStore;
  retention: Retention;
  webhookPolicy: WebhookPolicy;
  idempotency: IdempotencyKeys;
  disk: DiskSpace;
  /** the webhook deliveries this process makes (the metrics read their load) */
  webhooks?: WebhookDispatcher;
  /** With REDIS_URL: the connection (the rate limits keep their counts there) */
  redis?: Redis;
  /** Stops the sweeps, interrupts the jobs in hand and closes the journal this opened (not the renderer). */
  close(): Promise<void>;
}

/**
 * Opens the stores and recovers the jobs of the last run: records are replayed, interrupted jobs settled, what expired
 * while the service was down is swept, the disk budget is checked. Recovered jobs are queued by `jobs.resume()` once
 * the renderer has started.
 */
export async function openServices(opts: ServiceOptions): Promise<Services> {
  await loadStorage(opts.config);
  if (opts.config.redisUrl) return openClusterServices(opts);
  const { config, log } = opts;
  const now = opts.now ?? Date.now;
  const journal = opts.store ? null : await JournalJobStore.open({ dir: config.dataDir });
  const store = opts.store ?? journal!;
  const { outputs, assets } = dataStores(config, store, log, now);
  const cache = renderCache(opts, store, outputs, assets, now);
  const disk = new DiskSpace(config.dataDir, config.diskMinFreeBytes);
  const jobs = new JobService({
    store,
    renderer: opts.renderer,
    assets,
    outputs,
    concurrency: config.renderConcurrency,
    jobTimeoutMs: config.jobTimeoutMs,
    maxQueuedJobs: config.maxQueuedJobs,
    maxEndedJobs: config.maxEndedJobs,
    disk,
    scratchDir: scratchRoot(config),
    cache,
    log,
    now,
  });
  const retention = new Retention({ store, outputs, assets, cache, retentionMs: config.retentionMs, log, now });
  const webhookPolicy = new WebhookPolicy(config.webhookAllow);
  const webhooks = configuredDispatcher(config, { store, log, now, onAttempt: opts.onWebhookAttempt });
  jobs.events.on('ended', (rec) => webhooks.ended(rec));
  const idempotency = new IdempotencyIndex(now, idempotencyTtl(config.retentionMs));
  // nothing renders yet: what a job's scratch held belongs to the last run
  await rm(scratchRoot(config), { recursive: true, force: true });
  await assets.init();
  await outputs.init();
  // nothing renders yet: every partial file (a .tmp, a GIF's frames or palette) is left from the last run
  await outputs.removePartials();
  await jobs.init();
  // after recovery: a job that recovery ended in error has its webhook delivered too
  await webhooks.resume();
  idempotency.seed(await store.list());
  await retention.sweep();
  await outputs.enforceBudget();
  retention.start();
  return {
    jobs,
    outputs,
    assets,
    retention,
    webhookPolicy,
    idempotency,
    disk,
    webhooks,
    async close() {
      retention.stop();
      await jobs.close();
      await webhooks.close();
      await journal?.close();
    },
  };
}

/**
 * With REDIS_URL: records and queue in Redis, shared by every API process and render worker; outputs and assets in
 * the storage (STORAGE_URL), shared too. No recovery and no partial-file sweep at start (other processes may be rendering
 * now); a lost job is ended when it is next read (RedisJobService).
 */
async function openClusterServices(opts: ServiceOptions): Promise<Services> {
  const { config, log } = opts;
  const now = opts.now ?? Date.now;
  const redis = connectApi(config.redisUrl);
  redis.on('error', (err) => log.warn({ err }, 'redis connection error'));
  // an API started while Redis is unreachable stops with one clear line instead of waiting without listening
  try {
    await waitReady(redis, config.redisUrl, REDIS_START_MS);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const store = new RedisJobStore(redis, config.retentionMs, now);
  const work = new WorkQueue(redis);
  const { outputs, assets } = dataStores(config, store, log, now, store);
  const cache = renderCache(opts, store, outputs, assets, now);
  const disk = new DiskSpace(config.dataDir, config.diskMinFreeBytes);
  const events = connect(config.redisUrl);
  events.on('error', (err) => log.warn({ err }, 'redis connection error (queue events)'));
  const jobs = new RedisJobService({
    store,
    work,
    eventsConnection: events,
    renderer: opts.renderer,
    assets,
    outputs,
    jobTimeoutMs: config.jobTimeoutMs,
    maxQueuedJobs: config.maxQueuedJobs,
    disk,
    scratchDir: scratchRoot(config),
    cache,
    log,
    now,
  });
  // a job this process ends (a cancel, a job found failed or lost) has its webhook delivered from here; the workers
  // deliver those they end; any process resumes pending ones at start, each attempt made once (claimed in Redis)
  const webhooks = configuredDispatcher(config, {
    store,
    log,
    now,
    onAttempt: opts.onWebhookAttempt,
    claimAttempt: (id, n, holdMs) => store.claimWebhookAttempt(id, n, holdMs),
  });
  jobs.events.on('ended', (rec) => webhooks.ended(rec));
  const retention = new Retention({ store, outputs, assets, cache, retentionMs: config.retentionMs, log, now });
  // every API process answers one key with one job
  const idempotency = new RedisIdempotency(redis, idempotencyTtl(config.retentionMs));
  await assets.init({ shared: true });
  await outputs.init({ shared: true });
  // the shared byte count starts from the storage when Redis has none (a new Redis, or one that lost its data)
  if (config.outputMaxBytes !== undefined && (await store.outputBytes()) === 0) await outputs.enforceBudget();
  await jobs.init();
  await webhooks.resume();
  retention.start();
  return {
    jobs,
    outputs,
    assets,
    retention,
    webhookPolicy: new WebhookPolicy(config.webhookAllow),
    idempotency,
    disk,
    webhooks,
    redis,
    async close() {
      retention.stop();
      await jobs.close();
      await webhooks.close();
      await work.close();
      redis.disconnect();
      events.disconnect();
    },
  };
}

/** The render cache over the storage's `cache` area, shared by every process that shares the storage. */
export function renderCache(
  opts: Pick<ServiceOptions, 'config' | 'renderer' | 'log'>,
  store: JobStore,
  outputs: OutputStore,
  assets: AssetStore,
  now: () => number,
): RenderCache {
  return new RenderCache({
    files: openStorage(opts.config, 'cache'),
    store,
    assets,
    outputs,
    renderer: opts.renderer,
    retentionMs: opts.config.retentionMs,
    log: opts.log,
    now,
    enabled: opts.config.renderCache,
  });
}
