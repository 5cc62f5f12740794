// A job as a client meets it over HTTP, against any service URL (a started process, Redis mode's API processes, the
// embedded service listening): POST a JSON body, GET a job's view or any JSON answer, poll a job until it leaves
// `pending`, and the bytes a PNG output starts with.
import { until } from './until.js';

/** The first eight bytes of every PNG file. */
export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

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
  let ended: any;
  let thrown: { error: unknown } | undefined;
  await until(
    `job ${id} to leave pending`,
    async () => {
      const r = await fetch(`${base}/v1/jobs/${id}`).catch(() => null);
      if (!r) return false;
      if (r.status !== 200 && r.status !== 500) {
        await r.arrayBuffer();
        return false;
      }
      const j = (await r.json()) as any;
      if (j.status !== 'pending') {
        ended = j;
        return true;
      }
      try {
        await onPending?.(j);
      } catch (e) {
        // until would take a throw for "not yet": the caller's own stop is carried out of it
        thrown = { error: e };
        return true;
      }
      return false;
    },
    timeoutMs,
  );
  if (thrown) throw thrown.error;
  return ended;
}
