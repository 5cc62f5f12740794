// The MCP server of cmrender (Model Context Protocol, @modelcontextprotocol/sdk): the tools an agent calls
// (check_source, describe_scene, render_frame, render_video, render_gif, render_batch, explain_diagnostic; each refuses an argument
// it does not know, naming the accepted ones) and the resources it reads (the language
// reference, each example source). Written against the ServiceClient port (service-client.ts), so the same tools
// serve `/mcp` on the service (in-process) and `cmrender mcp` over stdio (HTTP to a running service): an MCP call is
// a job like any other, with the same limits, keys and rate limits.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '../contract/limits.js';
import { closestName, compile } from '../lang/index.js';
import { languageReference } from '../lang/reference.js';
import { repoRoot } from '../paths.js';
import { pause, type Answer, type JobKindOfTool, type ServiceClient } from './service-client.js';

export interface McpOptions {
  /** the server's version (default: package.json's) */
  version?: string;
  /** where the example sources are (default: the repository's examples/) */
  examplesDir?: string;
  /** how long a tool waits for its job before it gives up, in ms (default 10 minutes) */
  waitMs?: number;
}

type Diag = { code?: string; message?: string; line?: number; column?: number; severity?: string };
type ProgressSender = (progress: number, message: string) => Promise<void>;

const text = (t: string) => ({ type: 'text' as const, text: t });

/** One diagnostic as a line an agent reads: `NAM003 at 3:12: unknown identifier 'fgg'`. */
const diagLine = (d: Diag) =>
  `${d.code ?? '?'}${d.line !== undefined ? ` at ${d.line}:${d.column ?? 0}` : ''}: ${d.message ?? ''}`;

/** The registry's explanation of each distinct code among the diagnostics (the service's /v1/diagnostics/{code}). */
async function explanations(client: ServiceClient, diags: Diag[]): Promise<string[]> {
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
function refused(what: string, a: Answer): CallToolResult {
  const b = a.body ?? {};
  return {
    isError: true,
    content: [text(`${what}: HTTP ${a.status} ${String(b.code ?? '')}: ${String(b.error ?? b.message ?? '')}`)],
  };
}

/** A refusal that may be 400 invalid_args: its message and one line per problem with the args. */
function argsRefused(what: string, a: Answer): CallToolResult {
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
async function failed(client: ServiceClient, view: Record<string, unknown>): Promise<CallToolResult> {
  const diags = (view.diagnostics as Diag[] | undefined) ?? [];
  const lines = [`job ${String(view.job_id)} failed: ${String(view.message)} (code ${String(view.code)})`];
  if (diags.length) lines.push('', 'Diagnostics:', ...diags.map(diagLine));
  const explained = await explanations(client, diags);
  if (explained.length) lines.push('', 'Explanations:', '', explained.join('\n\n'));
  return { isError: true, content: [text(lines.join('\n'))], structuredContent: { job: view } };
}

/** How a render tool's call is run: the request's abort signal, whether to keep the job when it aborts, progress. */
interface CallContext {
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
async function runJob(
  client: ServiceClient,
  kind: JobKindOfTool,
  source: string,
  params: Record<string, number>,
  o: Required<Pick<McpOptions, 'waitMs'>>,
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
async function abandoned(
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
function progressOf(extra: {
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

const dims = {
  width: z.number().int().min(LIMITS.width.min).max(LIMITS.width.max).optional().describe('output width in px'),
  height: z.number().int().min(LIMITS.height.min).max(LIMITS.height.max).optional().describe('output height in px'),
};
const sourceArg = z.string().min(1).max(LIMITS.sourceMaxChars).describe('the .cm source');
const argsArg = z
  .record(z.string(), z.unknown())
  .optional()
  .describe(
    'the scene\'s arguments by parameter name, typed by its declarations (String: a JSON string; Number; Bool; a unit type: "2s", "300px"; Color: "#ff3399"; List: an array; a record: an object); describe_scene gives the signature and JSON Schema',
  );
const keepArg = z
  .boolean()
  .optional()
  .describe(
    'keep the job when this call is abandoned (the client disconnects or cancels): its id and URL come in the first progress notification. Default: the job is cancelled',
  );
const clip = {
  source: sourceArg,
  args: argsArg,
  keep: keepArg,
  duration: z.number().positive().optional().describe("seconds (default: the scene's own duration)"),
  fps: z.number().int().positive().optional().describe('frames per second'),
  ...dims,
};

/**
 * A tool's input: an object of exactly these arguments. An unknown one is an error naming it, the closest accepted
 * one and every accepted one (the SDK's raw shapes would drop it silently: `widht` rendered at the default width).
 */
function toolInput<S extends z.ZodRawShape>(shape: S) {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (iss) => {
      switch (iss.code) {
        case 'unrecognized_keys':
          return iss.keys
            .map((k) => {
              const s = closestName(k, accepted);
              return `unknown argument '${k}'${s ? ` (did you mean '${s}'?)` : ''}`;
            })
            .join('; ')
            .concat(`; the accepted arguments are ${accepted.join(', ')}`);
        default:
          return `the arguments must be an object of ${accepted.join(', ')}`;
      }
    },
  });
}

/** The params of a request from a tool's arguments (only those given). */
const paramsOf = (a: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => a[k] !== undefined).map((k) => [k, a[k] as number]));

let version: string | undefined;
const packageVersion = () =>
  (version ??= (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version);

function exampleSources(dir: string): { name: string; path: string }[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.cm'))
      .sort()
      .map((f) => ({ name: f, path: join(dir, f) }));
  } catch {
    return [];
  }
}

/** What an agent is told of the server when it connects: the order of work that gets a scene right. */
export const MCP_INSTRUCTIONS =
  'cmrender renders .cm scene sources (a small declarative language for 2D and 3D motion graphics) to PNG, MP4 and GIF. ' +
  'Read the resource cmrender://docs/language (the language reference) and an example (cmrender://examples/...) before writing a scene. ' +
  'Check every source with check_source first: errors stop a render; warnings (LIB001-LIB006, ANI001) render but usually mean the picture is wrong (a misspelt argument, a wrong unit). ' +
  'explain_diagnostic explains any code with a wrong and a right source. Then render_frame to look at one frame, and render_video or render_gif for the clip.';

/** Tools that only read: checking and explaining change nothing and may be called freely. */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
/** Tools that render: each makes a job and an output file on the service, and touches nothing else. */
const RENDERS = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** A new MCP server whose tools reach the service through `client` (one per request in stateless HTTP). */
export function cmrenderMcpServer(client: ServiceClient, opts: McpOptions = {}): McpServer {
  const o = { waitMs: opts.waitMs ?? 600_000 };
  const server = new McpServer(
    { name: 'cmrender', version: opts.version ?? packageVersion() },
    { instructions: MCP_INSTRUCTIONS },
  );

  server.registerTool(
    'check_source',
    {
      title: 'Check a .cm source',
      annotations: { title: 'Check a .cm source', ...READ_ONLY },
      description:
        "Compiles a .cm source without rendering (POST /v1/check), with the scene's `args` when given, and answers its diagnostics, each code with its explanation and a right example.",
      inputSchema: toolInput({ source: sourceArg, args: argsArg }),
    },
    async ({ source, args }) => {
      const r = await client.check(source, args);
      if (r.status !== 200 || !r.body) return argsRefused('POST /v1/check', r);
      const diags = (r.body.diagnostics as Diag[] | undefined) ?? [];
      const ok = r.body.ok === true;
      const lines = [ok ? 'ok: the source compiles' : 'the source does not compile'];
      if (diags.length) lines.push('', 'Diagnostics:', ...diags.map(diagLine));
      const explained = await explanations(client, diags);
      if (explained.length) lines.push('', 'Explanations:', '', explained.join('\n\n'));
      return {
        content: [text(lines.join('\n'))],
        structuredContent: { ok, diagnostics: diags, scene: r.body.scene ?? null },
      };
    },
  );

  server.registerTool(
    'describe_scene',
    {
      title: "Describe a scene's parameters",
      description:
        "The signature of the scene a render of this source uses (with `args` when given: they choose among scenes): its name, each parameter's name, declared type, default and whether it is required, and the JSON Schema (2020-12) of its `args`, to fill in and pass to render_frame, render_video or render_gif.",
      inputSchema: toolInput({ source: sourceArg, args: argsArg }),
    },
    async ({ source, args }) => {
      const r = await client.check(source, args);
      if (r.status !== 200 || !r.body) return argsRefused('POST /v1/check', r);
      const scene = r.body.scene as {
        name: string;
        params: { name: string; type: string; default: unknown; required: boolean }[];
      } | null;
      if (!scene) {
        const diags = (r.body.diagnostics as Diag[] | undefined) ?? [];
        return {
          isError: true,
          content: [text(['no scene renders from this source', ...diags.map(diagLine)].join('\n'))],
        };
      }
      const lines = [
        `scene ${scene.name}(${scene.params.map((p) => `${p.name}: ${p.type}${p.required ? '' : ` = ${JSON.stringify(p.default)}`}`).join(', ')})`,
        '',
        'JSON Schema of args:',
        JSON.stringify((scene as { schema?: unknown }).schema, null, 2),
      ];
      return { content: [text(lines.join('\n'))], structuredContent: { scene } };
    },
  );

  server.registerTool(
    'render_frame',
    {
      title: 'Render one frame',
      annotations: { title: 'Render one frame', ...RENDERS },
      description:
        'Renders one frame of a .cm scene as a PNG (POST /v1/frame) and answers the image and its URL. `at` is the time in seconds (default 0).',
      inputSchema: toolInput({
        source: sourceArg,
        args: argsArg,
        at: z.number().min(0).optional().describe('seconds into the scene'),
        ...dims,
        keep: keepArg,
      }),
    },
    async (a, extra) => {
      const run = await runJob(
        client,
        'frame',
        a.source,
        paramsOf(a, ['at', 'width', 'height']),
        o,
        { signal: extra.signal, keep: a.keep === true, progress: progressOf(extra) },
        a.args,
      );
      if ('result' in run) return run.result;
      const v = run.view;
      if (v.status !== 'ready') return failed(client, v);
      const url = String(v.url);
      const file = await client.download(url);
      if (file.status !== 200) return refused(`GET ${url}`, { status: file.status, body: null });
      return {
        content: [
          { type: 'image', data: file.bytes.toString('base64'), mimeType: 'image/png' },
          text(
            `${client.absolute(url)} (${String(v.width)}x${String(v.height)}, image/png, ${file.bytes.length} bytes)`,
          ),
        ],
      };
    },
  );

  const clipTool = (kind: 'video' | 'gif', name: string, title: string, route: string) =>
    server.registerTool(
      name,
      {
        title,
        annotations: { title, ...RENDERS },
        description: `Renders a ${kind === 'video' ? 'MP4 video' : 'looping GIF'} of a .cm scene (POST ${route}); reports progress while it renders and answers the output's URL, size, frames and type.`,
        inputSchema: toolInput(clip),
      },
      async (a, extra) => {
        const progress = progressOf(extra);
        const run = await runJob(
          client,
          kind,
          a.source,
          paramsOf(a, ['duration', 'fps', 'width', 'height']),
          o,
          {
            signal: extra.signal,
            keep: a.keep === true,
            progress,
          },
          a.args,
        );
        if ('result' in run) return run.result;
        const v = run.view;
        if (v.status !== 'ready') return failed(client, v);
        if (progress) await progress(1, 'done');
        const fps = a.fps ?? (kind === 'gif' ? LIMITS.gif.fps.default : LIMITS.fps.default);
        const duration = a.duration ?? compile(a.source, { args: a.args }).program?.durationSeconds;
        const facts = {
          url: client.absolute(String(v.url)),
          mime: v.mime,
          width: v.width,
          height: v.height,
          fps,
          ...(duration !== undefined ? { duration, frames: Math.round(duration * fps) } : {}),
          cached: v.cached === true,
        };
        return {
          content: [
            text(
              `${facts.url}\n${String(v.mime)}, ${String(v.width)}x${String(v.height)}, ${fps} fps` +
                (facts.frames !== undefined ? `, ${facts.duration} s, ${facts.frames} frames` : ''),
            ),
          ],
          structuredContent: facts,
        };
      },
    );
  clipTool('video', 'render_video', 'Render a video (MP4)', '/v1/render');
  clipTool('gif', 'render_gif', 'Render a GIF', '/v1/gif');

  server.registerTool(
    'render_batch',
    {
      title: 'Render a scene once per row (a batch)',
      description:
        "Renders one .cm scene once per row of args (POST /v1/batches): every row a job, admitted whole or not at all (a bad row is refused naming rows[i]). Reports progress (the first notification names the batch and its URL) and answers the batch's view (each row's status and output URL) and the URL of a ZIP of every output.",
      inputSchema: toolInput({
        kind: z.enum(['frame', 'video', 'gif']).describe('frame (PNG), video (MP4) or gif'),
        source: sourceArg,
        rows: z
          .array(
            z.strictObject({
              args: argsArg,
              name: z
                .string()
                .optional()
                .describe("the row's file name in the archive (letters, digits, . _ -); default its index"),
            }),
          )
          .min(1)
          .describe("one entry per render: the scene's args for it, and its name"),
        keep: keepArg,
        at: z.number().min(0).optional().describe('frame: seconds into the scene'),
        duration: clip.duration,
        fps: clip.fps,
        ...dims,
      }),
    },
    async (a, extra) => {
      const progress = progressOf(extra);
      const keys = a.kind === 'frame' ? ['at', 'width', 'height'] : ['duration', 'fps', 'width', 'height'];
      const q = await client.batch({ kind: a.kind, source: a.source, params: paramsOf(a, keys), rows: a.rows });
      if (q.status !== 202 || !q.body) return argsRefused('POST /v1/batches', q);
      const id = String(q.body.batch_id);
      const where = client.absolute(`/v1/batches/${id}`);
      const archive = `${where}/archive`;
      const end = Date.now() + o.waitMs;
      let told = '';
      for (;;) {
        if (extra.signal.aborted) {
          if (a.keep !== true) await client.cancelBatch(id).catch(() => undefined);
          return {
            isError: true,
            content: [
              text(
                a.keep === true
                  ? `call abandoned; batch ${id} goes on: ${where}`
                  : `call abandoned; batch ${id} cancelled`,
              ),
            ],
          };
        }
        const r = await client.batchView(id);
        const view = r.body as {
          status: string;
          count: number;
          progress: number;
          counts: { pending: number; ready: number; error: number };
          rows: { name: string; status: string; url?: string; code?: string | null }[];
        } | null;
        if (r.status !== 200 || !view) return refused(`GET /v1/batches/${id}`, r);
        if (view.status !== 'pending') {
          if (progress) await progress(1, 'done');
          const rows = view.rows.map((row) => ({ ...row, ...(row.url ? { url: client.absolute(row.url) } : {}) }));
          const failedRows = rows.filter((row) => row.status === 'error');
          return {
            ...(view.status === 'error' ? { isError: true } : {}),
            content: [
              text(
                [
                  `batch ${id}: ${view.status}, ${view.counts.ready} of ${view.count} rows ready`,
                  `view: ${where}`,
                  `archive (ZIP of every ready row's output and manifest.json): ${archive}`,
                  ...rows.filter((row) => row.url).map((row) => `${row.name}: ${row.url}`),
                  ...failedRows.map((row) => `${row.name}: error ${String(row.code)}`),
                ].join('\n'),
              ),
            ],
            structuredContent: { batch: { ...view, rows }, url: where, archive },
          };
        }
        const state = `${view.counts.ready + view.counts.error} of ${view.count} rows ended, ${Math.round(view.progress * 100)}%`;
        if (progress && state !== told) {
          await progress(view.progress, told === '' ? `batch ${id} (${where}): ${state}` : state);
          told = state;
        }
        if (Date.now() > end) return { isError: true, content: [text(`batch ${id} still pending; poll ${where}`)] };
        await pause(250, extra.signal);
      }
    },
  );

  server.registerTool(
    'explain_diagnostic',
    {
      title: 'Explain a diagnostic code',
      annotations: { title: 'Explain a diagnostic code', ...READ_ONLY },
      description: 'The explanation of a diagnostic code (NAM003, PAR100, ...) with a wrong and a right source.',
      inputSchema: toolInput({ code: z.string().min(1).max(16).describe('a diagnostic code such as NAM003') }),
    },
    async ({ code }) => {
      const r = await client.explain(code);
      if (r.status !== 200 || !r.body) return refused(`GET /v1/diagnostics/${code}`, r);
      const b = r.body as Record<string, string | undefined>;
      const parts = [`${b.code}: ${b.title}`, '', b.explanation ?? ''];
      if (b.wrong) parts.push('', 'Wrong:', b.wrong);
      if (b.right) parts.push('', 'Right:', b.right);
      return { content: [text(parts.join('\n'))], structuredContent: r.body };
    },
  );

  server.registerResource(
    'language-reference',
    'cmrender://docs/language',
    {
      title: 'The .cm language reference',
      description: 'Syntax, types and units, scenes and time, the standard library and every diagnostic code.',
      mimeType: 'text/markdown',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: languageReference() }] }),
  );
  for (const ex of exampleSources(opts.examplesDir ?? join(repoRoot, 'examples'))) {
    server.registerResource(
      `example-${ex.name.replace(/\.cm$/, '')}`,
      `cmrender://examples/${ex.name}`,
      { title: `Example ${ex.name}`, description: 'An example .cm source', mimeType: 'text/plain' },
      async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: readFileSync(ex.path, 'utf8') }] }),
    );
  }
  return server;
}
