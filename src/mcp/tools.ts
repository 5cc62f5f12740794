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
import { LIMITS } from '../contract/limits.js';
import { closestName, compile } from '../lang/index.js';
import { languageReference } from '../lang/reference.js';
import { repoRoot } from '../paths.js';
import { pause, type ServiceClient } from './service-client.js';
import {
  argsRefused,
  diagLine,
  explanations,
  failed,
  progressOf,
  refused,
  runJob,
  text,
  type Diag,
} from './tool-jobs.js';

export interface McpOptions {
  /** the server's version (default: package.json's) */
  version?: string;
  /** where the example sources are (default: the repository's examples/) */
  examplesDir?: string;
  /** how long a tool waits for its job before it gives up, in ms (default 10 minutes) */
  waitMs?: number;
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
