// GET /llms.txt: a plain-text page that tells an agent how to use this service (POST, poll, download, the limits,
// one example per kind), written from the OpenAPI document that the routes generate (openapi.ts), so it lists the
// same routes, summaries and request examples and cannot drift from them. Format: https://llmstxt.org (a title, a
// one-line summary, then sections).
import { describeDuration } from '../contract/describe-duration.js';
import { LIMITS } from '../contract/limits.js';

type Operation = {
  summary?: string;
  description?: string;
  operationId?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
};
export type OpenApiLike = { info?: { description?: string }; paths?: Record<string, Record<string, Operation>> };

/** The render routes in the order a reader meets them (their examples come from the document). */
const KINDS: [kind: string, path: string][] = [
  ['frame', '/v1/frame'],
  ['video', '/v1/render'],
  ['gif', '/v1/gif'],
  ['mesh', '/v1/mesh'],
  ['vectorize', '/v1/vectorize'],
];

/** `keptMs`: how long outputs, jobs and assets are kept (RETENTION_MS). */
export function llmsText(doc: OpenApiLike, keptMs: number): string {
  const paths = doc.paths ?? {};
  const ops = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
  const L = LIMITS;
  const out: string[] = [
    '# cmrender',
    '',
    `> ${doc.info?.description ?? 'Asynchronous render service for .cm scene sources.'}`,
    '',
    '## How to render',
    '',
    '1. POST the source as JSON to the route of the output you want (below): `{"source": "<.cm source>", "params": {...}}`. The answer is `202 {"job_id", "status": "pending", "kind"}` with `Location: /v1/jobs/{job_id}`.',
    '2. Poll `GET /v1/jobs/{job_id}` as its `Retry-After` header says (or follow `GET /v1/jobs/{job_id}/events`, Server-Sent Events) until `status` is no longer `pending`.',
    '3. `status: "ready"` (HTTP 200): download the job\'s `url` (`GET /v1/outputs/{job_id}.png|mp4|gif|glb|svg`). `status: "error"` (HTTP 500): `message` and `code` say why; a compile error carries `diagnostics` with line and column. `POST /v1/check` compiles a source without rendering.',
    '4. Every other error is `{"error", "code"}`: 400 (a bad request, `code` names it), 401 `unauthorized` (this instance wants `Authorization: Bearer <key>` on writes), 429 `rate_limited` and 503 (`queue_full`, `storage_full`, `starting`, `shutting_down`): wait `Retry-After` seconds and retry.',
    '',
    '## Limits',
    '',
    `- Source: at most ${L.sourceMaxChars} characters; request body at most ${L.bodyMaxBytes} bytes.`,
    `- Frame and video size: width ${L.width.min}..${L.width.max}, height ${L.height.min}..${L.height.max} (default ${L.defaultFrame.width}x${L.defaultFrame.height}, the scene's aspect kept when one side is given).`,
    `- Video: fps ${L.fps.min}..${L.fps.max} (default ${L.fps.default}), duration ${L.duration.min}..${L.duration.max} s. GIF: fps ${L.gif.fps.min}..${L.gif.fps.max}, duration ${L.gif.duration.min}..${L.gif.duration.max} s, ${L.gif.width.min}..${L.gif.width.max} px.`,
    `- Mesh: an SVG of at most ${L.mesh.sourceMaxBytes} bytes. Assets: at most ${L.assets.maxFiles} files of ${L.assets.maxFileBytes} bytes (POST /v1/assets, then \`"assets": {"<path in source>": "<key>"}\`).`,
    `- Outputs, jobs and assets are kept ${describeDuration(keptMs)}.`,
    '',
    '## Examples',
  ];
  for (const [kind, path] of KINDS) {
    const op = paths[path]?.post;
    if (!op) continue;
    const example = Object.values(op.requestBody?.content ?? {})[0]?.example;
    out.push('', `### ${kind}: POST ${path} (${op.summary ?? ''})`, '');
    if (op.description) out.push(op.description, '');
    if (example !== undefined) out.push('```json', JSON.stringify(example, null, 2), '```');
  }
  out.push('', '## Routes', '');
  for (const { method, path, op } of ops) out.push(`- ${method} ${path}: ${op.summary ?? ''}`);
  out.push(
    '',
    '## Optional',
    '',
    '- [Language reference](/docs/language): the .cm language, its standard library with every parameter, and every diagnostic code explained (`GET /v1/diagnostics/{code}` gives one as JSON).',
    '- [Full text](/llms-full.txt): this page followed by the whole language reference, as plain text.',
    '- [MCP server](/mcp): the same service as Model Context Protocol tools (check_source, render_frame, render_video, render_gif, explain_diagnostic) over Streamable HTTP; `cmrender mcp --url <this service>` serves them over stdio.',
    '- [OpenAPI document](/openapi.json): every route, schema and error code.',
    '- [API reference](/docs): the same, for people.',
    '',
  );
  return out.join('\n');
}
