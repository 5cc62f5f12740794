// The service's HTTP API as the editor uses it: enqueue a job, follow it to the end, upload images. Same origin only.
// An instance with API_KEYS answers a write without a key 401: the page asks for one (onKeyNeeded), keeps it in local
// storage and sends it as `Authorization: Bearer <key>` on every request from then on.

export type Kind = 'frame' | 'video' | 'gif';

const ENDPOINT: Record<Kind, string> = { frame: '/v1/frame', video: '/v1/render', gif: '/v1/gif' };

export interface JobRequest {
  source: string;
  params: Record<string, number | string>;
  /** in-source path -> asset key */
  assets: Record<string, string>;
  /** the scene's arguments (the parameters panel's) */
  args?: Record<string, unknown>;
}

export interface JobDiagnostic {
  code: string;
  message: string;
  line?: number;
  column?: number;
}

export type JobEnd =
  | { status: 'ready'; url: string; mime: string; width?: number; height?: number }
  | { status: 'error'; message: string; code?: string | null; diagnostics?: JobDiagnostic[] };

export interface JobProgress {
  queuePosition?: number;
  progress?: number;
}

async function errorText(r: Response): Promise<string> {
  try {
    const body = (await r.json()) as { error?: string; code?: string };
    return body.error ?? `HTTP ${r.status}`;
  } catch {
    return `HTTP ${r.status}`;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const KEY_STORE = 'cmrender.apiKey';
let askForKey: ((why: string) => string | null) | null = null;

/** How the page asks for a key when the service wants one (why: the service's own words); null: not given. */
export function onKeyNeeded(ask: (why: string) => string | null): void {
  askForKey = ask;
}

/**
 * The key in use: the one in this tab's session storage, else the one given in this page (storage disabled). Session
 * storage, not local: a key is a secret, and it goes with the tab instead of staying on the machine for ever.
 */
let pageKey: string | null = null;
function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORE) ?? pageKey;
  } catch {
    return pageKey;
  }
}

/** fetch with the stored key; a 401 asks for a key once, keeps it and tries again. */
async function keyedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const send = () => {
    const key = storedKey();
    const headers = new Headers(init.headers);
    if (key) headers.set('authorization', `Bearer ${key}`);
    return fetch(url, { ...init, headers });
  };
  const r = await send();
  if (r.status !== 401 || !askForKey) return r;
  const key = askForKey(await errorText(r.clone()));
  if (!key) return r;
  pageKey = key;
  try {
    sessionStorage.setItem(KEY_STORE, key);
  } catch {
    // storage disabled: the key lasts as long as the page
  }
  return send();
}

/**
 * Posts a job and follows it until it is ready or failed: through its event stream (every change of queue position
 * and progress arrives, however short it lasts), or by polling where the stream is not to be had.
 */
export async function runJob(
  kind: Kind,
  req: JobRequest,
  onProgress: (p: JobProgress) => void,
  signal?: AbortSignal,
): Promise<JobEnd> {
  const headers = { 'content-type': 'application/json' };
  const r = await keyedFetch(ENDPOINT[kind], { method: 'POST', headers, body: JSON.stringify(req), signal });
  if (r.status === 404) return { status: 'error', message: `this service has no ${ENDPOINT[kind]} endpoint` };
  if (r.status !== 202) return { status: 'error', message: await errorText(r) };
  const { job_id } = (await r.json()) as { job_id: string };
  const streamed = await followEvents(job_id, onProgress, signal);
  if (streamed) return streamed;
  for (let wait = 50; ; wait = Math.min(500, wait * 1.5)) {
    await sleep(wait);
    signal?.throwIfAborted();
    const j = await keyedFetch(`/v1/jobs/${job_id}`, { signal });
    const body = (await j.json()) as Record<string, unknown>;
    if (body.status === 'pending') {
      onProgress(progressOf(body));
      continue;
    }
    if (body.status === 'ready') return body as unknown as JobEnd;
    if (body.status === 'error') return body as unknown as JobEnd;
    return { status: 'error', message: (body.error as string) ?? `HTTP ${j.status}` };
  }
}

const progressOf = (body: Record<string, unknown>): JobProgress => ({
  queuePosition: body.queue_position as number | undefined,
  progress: body.progress as number | undefined,
});

/**
 * GET /v1/jobs/{id}/events: `progress` events, then the `end` event's final view. Null when the stream fails
 * (no EventSource, a proxy that drops it): the caller polls instead.
 */
function followEvents(id: string, onProgress: (p: JobProgress) => void, signal?: AbortSignal): Promise<JobEnd | null> {
  if (typeof EventSource === 'undefined') return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const es = new EventSource(`/v1/jobs/${id}/events`);
    const close = () => {
      es.close();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      close();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    es.addEventListener('progress', (e) => onProgress(progressOf(JSON.parse((e as MessageEvent).data))));
    es.addEventListener('end', (e) => {
      close();
      resolve(JSON.parse((e as MessageEvent).data) as JobEnd);
    });
    es.onerror = () => {
      close();
      resolve(null);
    };
  });
}

/** Uploads image files: filename -> asset key. */
export async function uploadImages(files: readonly File[]): Promise<Record<string, string>> {
  const form = new FormData();
  for (const f of files) form.append('file', f, f.name);
  const r = await keyedFetch('/v1/assets', { method: 'POST', body: form });
  if (r.status !== 200) throw new Error(await errorText(r));
  return ((await r.json()) as { assets: Record<string, string> }).assets;
}

/** A batch's view as GET /v1/batches/{id} answers it (the fields the Batch tab shows). */
export interface BatchView {
  batch_id: string;
  status: 'pending' | 'ready' | 'error';
  count: number;
  counts: { pending: number; ready: number; error: number };
  progress: number;
  rows: { job_id: string; name: string; status: 'pending' | 'ready' | 'error'; url?: string; code?: string | null }[];
}

/**
 * POSTs a batch (POST /v1/batches: one job per row, admitted whole) and follows its view until every row has ended,
 * telling each view on the way; the final view, or the service's refusal in words.
 */
export async function runBatch(
  body: {
    kind: Kind;
    source: string;
    params: Record<string, number | string>;
    assets: Record<string, string>;
    rows: { name: string; args: Record<string, unknown> }[];
  },
  onView: (v: BatchView) => void,
  signal?: AbortSignal,
): Promise<{ view: BatchView } | { error: string }> {
  const headers = { 'content-type': 'application/json' };
  const r = await keyedFetch('/v1/batches', { method: 'POST', headers, body: JSON.stringify(body), signal });
  if (r.status !== 202) return { error: await errorText(r) };
  const { batch_id } = (await r.json()) as { batch_id: string };
  for (let wait = 100; ; wait = Math.min(500, wait * 1.5)) {
    const v = await keyedFetch(`/v1/batches/${batch_id}`, { signal });
    if (v.status !== 200) return { error: await errorText(v) };
    const view = (await v.json()) as BatchView;
    onView(view);
    if (view.status !== 'pending') return { view };
    await sleep(wait);
    signal?.throwIfAborted();
  }
}
