// What the MCP tools need of a cmrender service, as a port with two ends: in-process (the app's own routes through
// app.inject: src/server/routes/mcp.ts) and over HTTP (fetch, below: `cmrender mcp --url`). Either way a tool call
// goes through the service's routes, so keys, rate limits, admission and the render cache apply as to any client.

/** An answer of the service: its status and its JSON body (null when it has none). */
export interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

export type JobKindOfTool = 'frame' | 'video' | 'gif';

export interface ServiceClient {
  /** POST /v1/check (with the scene's args when given) */
  check(source: string, args?: Record<string, unknown>): Promise<Answer>;
  /** POST /v1/frame | /v1/render | /v1/gif */
  enqueue(
    kind: JobKindOfTool,
    body: { source: string; params?: Record<string, number>; args?: Record<string, unknown> },
  ): Promise<Answer>;
  /** GET /v1/jobs/{id} */
  job(id: string): Promise<Answer>;
  /** DELETE /v1/jobs/{id}: cancels a job (a tool's call that its client abandoned) */
  cancel(id: string): Promise<Answer>;
  /**
   * Resolves when job `id` may have changed since this call: at its next event in-process (the job service's own
   * events: no polling), after a poll's pause over HTTP; at the latest after `ms`, at once when `signal` aborts.
   * Asked before reading the job, so a change between the read and the wait is not missed.
   */
  nextChange(id: string, ms: number, signal: AbortSignal): Promise<void>;
  /** POST /v1/batches */
  batch(body: Record<string, unknown>): Promise<Answer>;
  /** GET /v1/batches/{id} */
  batchView(id: string): Promise<Answer>;
  /** DELETE /v1/batches/{id}: cancels a batch's pending rows (a render_batch call its client abandoned) */
  cancelBatch(id: string): Promise<Answer>;
  /** GET /v1/diagnostics/{code} */
  explain(code: string): Promise<Answer>;
  /** GET of an output's path (`/v1/outputs/<id>.png`) */
  download(path: string): Promise<{ status: number; mime: string; bytes: Buffer }>;
  /** The URL a client outside can fetch a path at. */
  absolute(path: string): string;
}

export const ENQUEUE_PATH: Record<JobKindOfTool, string> = { frame: '/v1/frame', video: '/v1/render', gif: '/v1/gif' };

async function jsonOf(r: Response): Promise<Record<string, unknown> | null> {
  const text = await r.text();
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return text ? { error: text } : null;
  }
}

/** The pause between two reads of a job over HTTP (the service's events stream is not followed: one request per read). */
const HTTP_POLL_MS = 200;

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done);
    if (signal.aborted) done();
  });
}

/** The service at `baseUrl`, with `Authorization: Bearer <apiKey>` when a key is given. */
export function httpServiceClient(baseUrl: string, apiKey?: string, pollMs = HTTP_POLL_MS): ServiceClient {
  const base = baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const r = await fetch(base + path, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: await jsonOf(r) };
  };
  return {
    check: (source, args) => call('POST', '/v1/check', args === undefined ? { source } : { source, args }),
    enqueue: (kind, body) => call('POST', ENQUEUE_PATH[kind], body),
    job: (id) => call('GET', `/v1/jobs/${encodeURIComponent(id)}`),
    cancel: (id) => call('DELETE', `/v1/jobs/${encodeURIComponent(id)}`),
    nextChange: (_id, ms, signal) => pause(Math.min(ms, pollMs), signal),
    batch: (body) => call('POST', '/v1/batches', body),
    batchView: (id) => call('GET', `/v1/batches/${encodeURIComponent(id)}`),
    cancelBatch: (id) => call('DELETE', `/v1/batches/${encodeURIComponent(id)}`),
    explain: (code) => call('GET', `/v1/diagnostics/${encodeURIComponent(code)}`),
    async download(path) {
      const r = await fetch(base + path, { headers });
      return {
        status: r.status,
        mime: r.headers.get('content-type') ?? 'application/octet-stream',
        bytes: Buffer.from(await r.arrayBuffer()),
      };
    },
    absolute: (path) => base + path,
  };
}
