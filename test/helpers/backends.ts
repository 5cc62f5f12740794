// The backend fixture: a behavioural job test written once runs on both queue backends, as BullMQ runs its test files
// per backend. `forEachBackend(settings, (b) => { test(...) })` opens, for each backend, a describe block with its own
// service on the given settings: embedded (one API process, the journal and the local queue; `apis` names it twice)
// and Redis (a real redis-server, two API processes that render nothing and one render worker, sharing DATA_DIR), so
// what a client sees cannot drift between the modes. The services are real processes (`npm start`, `npm run worker`).
import { describe, before, after } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRedis } from './redis.js';
import { startProcess, type StartedProcess } from './started-process.js';

export type BackendName = 'embedded' | 'redis';

export interface Backend {
  readonly name: BackendName;
  /** the API processes a client may talk to (embedded: the one service, twice) */
  apis: [string, string];
  /** the DATA_DIR every process of the backend shares (outputs, segments, scratch) */
  dataDir: string;
  /** the Redis every process of the Redis backend shares (absent on the embedded one) */
  redisUrl?: string;
  /** Stops the API processes (SIGTERM) and starts them again on the same data; apis says where they are now. */
  restartApis(): Promise<void>;
  close(): Promise<void>;
}

/** Settings every backend of the fixture shares (a test's own settings come on top). */
const COMMON = {
  WEBHOOK_ALLOW: '127.0.0.0/8',
  WEBHOOK_RETRY_MS: '200,200',
  STALLED_INTERVAL_MS: '5000',
  // one render slot in both modes: the order of the queue is what some tests look at
  RENDER_CONCURRENCY: '1',
};

async function embedded(settings: Record<string, string>): Promise<Backend> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cmr-backend-'));
  const env = { ...COMMON, ...settings, DATA_DIR: dataDir };
  let api = await startProcess('api', env);
  const b: Backend = {
    name: 'embedded',
    apis: [api.url!, api.url!],
    dataDir,
    async restartApis() {
      await api.stop();
      api = await startProcess('api', env);
      b.apis = [api.url!, api.url!];
    },
    async close() {
      await api.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return b;
}

async function onRedis(settings: Record<string, string>): Promise<Backend> {
  const redis = await TestRedis.start();
  const dataDir = await mkdtemp(join(tmpdir(), 'cmr-backend-'));
  const env = { ...COMMON, ...settings, REDIS_URL: redis.url, DATA_DIR: dataDir };
  const startApi = () => startProcess('api', { ...env, RENDER_CONCURRENCY: '0' });
  const startApis = () => Promise.all([startApi(), startApi()]);
  // the APIs and the worker start side by side; when one cannot, those that did are stopped
  const started = await Promise.allSettled([startApi(), startApi(), startProcess('worker', env)]);
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
    await redis.close();
    await rm(dataDir, { recursive: true, force: true });
    throw failed.reason;
  }
  const [api0, api1, worker] = started.map((r) => (r as PromiseFulfilledResult<StartedProcess>).value);
  let apis = [api0!, api1!];
  const b: Backend = {
    name: 'redis',
    apis: [apis[0].url!, apis[1].url!],
    dataDir,
    redisUrl: redis.url,
    async restartApis() {
      await Promise.all(apis.map((p) => p.stop()));
      apis = await startApis();
      b.apis = [apis[0].url!, apis[1].url!];
    },
    async close() {
      await Promise.all([...apis, worker!].map((p) => p.stop()));
      await redis.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return b;
}

const OPEN: Record<BackendName, (settings: Record<string, string>) => Promise<Backend>> = { embedded, redis: onRedis };

/**
 * Runs `cases` once per backend, each in a describe block titled with the backend, over a service started on
 * `settings` before its cases and stopped after them. `cases` gets the backend as a getter's target: read `b.apis`
 * inside a test (it is opened in before(), and a restart moves it). `names` narrows the backends, for a case whose
 * other backend is tested in this process on an injected clock.
 */
export function forEachBackend(
  title: string,
  settings: Record<string, string>,
  cases: (b: Backend) => void,
  names: readonly BackendName[] = ['embedded', 'redis'],
): void {
  for (const name of names) {
    const holder = {} as { b?: Backend };
    const b = new Proxy({} as Backend, {
      get: (_, key) => (key === 'name' ? name : (holder.b as unknown as Record<string | symbol, unknown>)?.[key]),
    });
    describe(`${title} (${name} backend)`, () => {
      before(async () => {
        holder.b = await OPEN[name](settings);
      });
      after(async () => {
        await holder.b?.close();
      });
      cases(b);
    });
  }
}
