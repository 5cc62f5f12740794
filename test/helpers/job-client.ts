// The tests' one job client: a job (or a batch) as a client meets it, through an app started in this process
// (app.inject) or over HTTP against any base URL (a service as a child process, Redis mode's API processes, the
// embedded service listening). POST a body, read a view, wait for a job or a batch to leave `pending`. Every wait for
// an end is followEnd's, so how the tests follow a job is decided once. It polls with until's backoff (20 ms slowing
// to 200 ms) rather than the service's Retry-After: that hint is in whole seconds (1 s at best) for a client that
// should not hammer, and a fake renderer's job ends in milliseconds, so honouring it would add seconds a job to a
// suite that is CPU-bound on two cores. A test that must see an end it could miss between two polls (a record that
// expires right after) reads the job's events stream instead.
import type { FastifyInstance } from 'fastify';
import { until } from './until.js';

/** The first eight bytes of every PNG file. */
export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** An answer of the app in this process (app.inject's response). */
export type InjectAnswer = Awaited<ReturnType<FastifyInstance['inject']>>;

/**
 * Reads until `ended` says so, and answers the last read. `read` answering null is "no answer yet" (a service
 * restarting); `onPending` sees each read that has not ended, and what it throws ends the wait and is thrown to the
 * caller. Past timeoutMs, throws naming `what` and the last read.
 */
export async function followEnd<A>(o: {
  what: string;
  read: () => Promise<A | null>;
  ended: (a: A) => boolean;
  timeoutMs: number;
  onPending?: (a: A) => void | Promise<void>;
  describe?: (a: A) => string;
}): Promise<A> {
  let last: A | null = null;
  let thrown: { error: unknown } | undefined;
  await until(
    () => `${o.what} (last answer: ${last === null ? 'none' : (o.describe?.(last) ?? JSON.stringify(last))})`,
    async () => {
      const a = await o.read();
      if (a === null) return false;
      last = a;
      if (o.ended(a)) return true;
      try {
        await o.onPending?.(a);
      } catch (e) {
        // until would take a throw for "not yet": the caller's own stop is carried out of it
        thrown = { error: e };
        return true;
      }
      return false;
    },
    o.timeoutMs,
  );
  if (thrown) throw thrown.error;
  return last!;
}

// ---- an app in this process

export async function post(app: FastifyInstance, url: string, payload: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url,
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export interface WaitOptions {
  timeoutMs?: number;
  /** sent with every read (an API key) */
  headers?: Record<string, string>;
}

const describeAnswer = (r: InjectAnswer) => `${r.statusCode} ${r.body.slice(0, 300)}`;

/** Polls GET /v1/jobs/{id} until the job leaves `pending` (or is 404); returns the last response. */
export async function waitJob(app: FastifyInstance, id: string, options: number | WaitOptions = 60_000) {
  const { timeoutMs = 60_000, headers } = typeof options === 'number' ? { timeoutMs: options } : options;
  return followEnd<InjectAnswer>({
    what: `job ${id} to leave pending`,
    read: () => app.inject({ url: `/v1/jobs/${id}`, headers }),
    ended: (r) => r.statusCode === 404 || r.json().status !== 'pending',
    describe: describeAnswer,
    timeoutMs,
  });
}

/** POSTs a job and waits for it. */
export async function runJob(app: FastifyInstance, url: string, body: unknown) {
  const r = await post(app, url, body);
  if (r.statusCode !== 202) throw new Error(`POST ${url} answered ${r.statusCode}: ${r.body}`);
  return waitJob(app, r.json().job_id);
}

/** Polls GET /v1/batches/{id} until the batch leaves `pending`; returns its view. */
export async function waitBatch(app: FastifyInstance, id: string, timeoutMs = 120_000): Promise<any> {
  const r = await followEnd<InjectAnswer>({
    what: `batch ${id} to end`,
    read: () => app.inject({ url: `/v1/batches/${id}` }),
    ended: (r) => r.json().status !== 'pending',
    describe: (r) => JSON.stringify(r.json().counts ?? r.body.slice(0, 300)),
    timeoutMs,
  });
  return r.json();
}

// ---- over HTTP, against a base URL

export async function postJson(base: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}

/** The view GET /v1/jobs/{id} answers (whatever its status code). */
export async function jobView(base: string, id: string): Promise<any> {
  return (await fetch(`${base}/v1/jobs/${id}`)).json();
}

/** The HTTP status and body of a GET: parsed when it is JSON, the text otherwise. */
export async function getJson(url: string): Promise<{ status: number; json: any }> {
  const r = await fetch(url);
  const text = await r.text();
  return { status: r.status, json: text && r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

/**
 * Polls GET /v1/jobs/{id} until the job is no longer pending, and answers its view (a job in error is answered with
 * 500 and its view). onPending sees each pending view; what it throws ends the poll and is thrown to the caller. Past
 * timeoutMs, throws.
 */
export async function pollJob(
  base: string,
  id: string,
  timeoutMs = 120_000,
  onPending?: (view: any) => void | Promise<void>,
): Promise<any> {
  return followEnd<any>({
    what: `job ${id} to leave pending`,
    read: async () => {
      const r = await fetch(`${base}/v1/jobs/${id}`).catch(() => null);
      if (!r) return null;
      if (r.status !== 200 && r.status !== 500) {
        await r.arrayBuffer();
        return null;
      }
      return r.json();
    },
    ended: (view) => view.status !== 'pending',
    onPending,
    timeoutMs,
  });
}
