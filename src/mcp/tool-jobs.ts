// A render tool's job, from the MCP call to its end: queued through the ServiceClient port, followed by its changes
// (progress notifications, the first naming the job), given up when the call is abandoned (cancelled, unless the call
// asked to keep it), and the answers a refusal or a failure makes (each diagnostic with its explanation). tools.ts
// registers the tools that use it.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Answer, type JobKindOfTool, type ServiceClient } from './service-client.js';

export type Diag = { code?: string; message?: string; line?: number; column?: number; severity?: string };
export type ProgressSender = (progress: number, message: string) => Promise<void>;

export const text = (t: string) => ({ type: 'text' as const, text: t });

/** One diagnostic as a line an agent reads: `NAM003 at 3:12: unknown identifier 'fgg'`. */
export const diagLine = (d: Diag) =>
  `${d.code ?? '?'}${d.line !== undefined ? ` at ${d.line}:${d.column ?? 0}` : ''}: ${d.message ?? ''}`;

/** The registry's explanation of each distinct code among the diagnostics (the service's /v1/diagnostics/{code}). */
export async function explanations(client: ServiceClient, diags: Diag[]): Promise<string[]> {
  const codes = [...new Set(diags.map((d) => d.code).filter((c): c is string => !!c))];
  const out: string[] = [];
  for (const code of codes) {
    const r = await client.explain(code);
    if (r.status !== 200 || !r.body) continue;
    const b = r.body as { title?: string; explanation?: string; right?: string };
    out.push(`${code}: ${b.title ?? ''}\n${b.explanation ?? ''}${b.right ? `\nRight:\n${b.right}` : ''}`);
  }
  return out;
}

/** An answer that is not what was hoped for (4xx, 5xx): isError with the envelope's message and code. */
export function refused(what: string, a: Answer): CallToolResult {
  const b = a.body ?? {};
  return {
    isError: true,
    content: [text(`${what}: HTTP ${a.status} ${String(b.code ?? '')}: ${String(b.error ?? b.message ?? '')}`)],
  };
}

/** A refusal that may be 400 invalid_args: its message and one line per problem with the args. */
export function argsRefused(what: string, a: Answer): CallToolResult {
  const r = refused(what, a);
  const problems = (a.body?.problems as { message?: string }[] | undefined) ?? [];
  if (problems.length === 0) return r;
  return {
    ...r,
    content: [
      text(
        [r.content[0]!.type === 'text' ? r.content[0]!.text : '', ...problems.map((p) => `- ${p.message ?? ''}`)].join(
          '\n',
        ),
      ),
    ],
  };
}

/** A failed job: isError with its message, code and diagnostics, each code explained. */
export async function failed(client: ServiceClient, view: Record<string, unknown>): Promise<CallToolResult> {
  const diags = (view.diagnostics as Diag[] | undefined) ?? [];
  const lines = [`job ${String(view.job_id)} failed: ${String(view.message)} (code ${String(view.code)})`];
  if (diags.length) lines.push('', 'Diagnostics:', ...diags.map(diagLine));
  const explained = await explanations(client, diags);
  if (explained.length) lines.push('', 'Explanations:', '', explained.join('\n\n'));
  return { isError: true, content: [text(lines.join('\n'))], structuredContent: { job: view } };
}

/** How a render tool's call is run: the request's abort signal, whether to keep the job when it aborts, progress. */
export interface CallContext {
  /** aborted when the client goes (its connection closes, it sends notifications/cancelled) */
  signal: AbortSignal;
  /** the job outlives an abandoned call (the client found its id in the first progress notification) */
  keep: boolean;
  progress?: ProgressSender;
}

/**
 * Queues a job and follows it to its end, telling `progress` as it goes (the first notification names the job and
 * its URL). When the call is abandoned its job is cancelled (its slot is freed), unless it was asked to be kept.
 */
export async function runJob(
  client: ServiceClient,
  kind: JobKindOfTool,
  source: string,
  params: Record<string, number>,
  o: { waitMs: number },
  call: CallContext,
  args?: Record<string, unknown>,
): Promise<{ view: Record<string, unknown> } | { result: CallToolResult }> {
  const q = await client.enqueue(kind, args === undefined ? { source, params } : { source, params, args });
  if (q.status !== 202 || !q.body) return { result: argsRefused(`POST ${kind} job`, q) };
  const id = String(q.body.job_id);
  const where = client.absolute(`/v1/jobs/${id}`);
  const { signal, progress } = call;
  const end = Date.now() + o.waitMs;
  let told = -1;
  for (;;) {
    if (signal.aborted) return abandoned(client, id, where, call.keep);
    // asked before the read, so a change while reading wakes the wait below
    const change = client.nextChange(id, Math.max(0, end - Date.now()), signal);
    const r = await client.job(id);
    const view = r.body;
    if (!view || (r.status !== 200 && r.status !== 500)) return { result: refused(`GET /v1/jobs/${id}`, r) };
    if (view.status !== 'pending') return { view };
    if (signal.aborted) return abandoned(client, id, where, call.keep);
    const p = typeof view.progress === 'number' ? view.progress : 0;
    if (progress && p > told) {
      const ahead = typeof view.queue_position === 'number' && view.queue_position > 0;
      const state = ahead ? `waiting, ${String(view.queue_position)} ahead` : `rendering ${Math.round(p * 100)}%`;
      // the first names the job, so a client that asked to keep it can find it again after a disconnect
      await progress(p, told < 0 ? `job ${id} (${where}): ${state}` : state);
      told = p;
    }
    if (Date.now() > end)
      return {
        result: {
          isError: true,
          content: [text(`job ${id} still pending; poll ${where}`)],
        },
      };
    await change;
  }
}

/** The client went before its job ended: the job is cancelled unless kept; the answer goes nowhere, but is honest. */
export async function abandoned(
  client: ServiceClient,
  id: string,
  where: string,
  keep: boolean,
): Promise<{ result: CallToolResult }> {
  if (!keep) await client.cancel(id).catch(() => undefined);
  return {
    result: {
      isError: true,
      content: [text(keep ? `call abandoned; job ${id} goes on: ${where}` : `call abandoned; job ${id} cancelled`)],
    },
  };
}

/** The progress notifications of a call, when its client asked for them (a `progressToken`). */
export function progressOf(extra: {
  _meta?: { progressToken?: string | number };
  sendNotification: (n: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; total: number; message: string };
  }) => Promise<void>;
}): ProgressSender | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return (p, message) =>
    extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: token, progress: p, total: 1, message },
    });
}
