// The OpenAPI 3.1 document, generated from the zod schemas (schemas.ts). Served at /openapi.json and written to
// openapi/openapi.json (`tsx src/server/openapi.ts --write`; a test checks the file is current).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import * as S from './schemas.js';
import { LIMITS } from '../contract/limits.js';

type Json = Record<string, unknown>;

function components(): Record<string, Json> {
  const out: Record<string, Json> = {};
  const add = (schema: z.ZodType, io: 'input' | 'output') => {
    const js = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as Json;
    const defs = (js.$defs ?? {}) as Record<string, Json>;
    for (const [k, v] of Object.entries(defs)) out[k] = v;
  };
  for (const s of [S.RenderRequest, S.FrameRequest, S.CheckRequest]) add(s, 'input');
  for (const s of [S.EnqueueResponse, S.Job, S.ErrorEnvelope, S.AssetsResponse, S.CheckResponse]) add(s, 'output');
  const text = JSON.stringify(out).replaceAll('#/$defs/', '#/components/schemas/');
  const parsed = JSON.parse(text) as Record<string, Json>;
  for (const v of Object.values(parsed)) delete v.$schema;
  return Object.fromEntries(Object.keys(parsed).sort().map((k) => [k, parsed[k]]));
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string, description: string) => ({ description, content: { 'application/json': { schema: ref(name) } } });
const err400 = json('ErrorEnvelope', 'Bad request: `bad_json`, `missing_source`, `source_too_large`, `body_too_large`, `invalid_params`, `invalid_assets` or `unknown_asset`.');
const retryAfter = { 'retry-after': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } };
const err503 = (codes: string) => ({ ...json('ErrorEnvelope', `Full or stopping: ${codes}. Retry after \`retry-after\` seconds.`), headers: retryAfter });

function enqueue(kind: 'video' | 'frame', reqName: string, summary: string) {
  return {
    post: {
      summary,
      operationId: kind === 'video' ? 'render' : 'frame',
      description: `Queues a ${kind} job and answers at once. JSON is parsed whatever the content-type. Poll GET /v1/jobs/{id} (every ${LIMITS.pollIntervalMs / 1000} s is recommended).`,
      requestBody: { required: true, content: { 'application/json': { schema: ref(reqName) } } },
      responses: { '202': json('EnqueueResponse', `Queued; \`kind\` = \`${kind}\`.`), '400': err400, '503': err503('`queue_full`, `storage_full` or `shutting_down`') },
    },
  };
}

export function buildOpenApi(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'cmrender',
      version: '0.0.1',
      description:
        'Asynchronous render service for .cm scene sources: POST a source, get a job id (202), poll the job, download the PNG or MP4. Every answer carries fully open CORS headers.',
    },
    paths: {
      '/v1/render': enqueue('video', 'RenderRequest', 'Render an MP4 video'),
      '/v1/frame': enqueue('frame', 'FrameRequest', 'Render one PNG frame'),
      '/v1/jobs/{id}': {
        get: {
          summary: 'Poll a job',
          operationId: 'getJob',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
          responses: {
            '200': { description: 'Pending or ready.', content: { 'application/json': { schema: { oneOf: [ref('JobPending'), ref('JobReady')] } } } },
            '404': json('ErrorEnvelope', 'Unknown job id: `{"error": "not_found"}`.'),
            '500': json('JobError', 'The job ended in error.'),
          },
        },
      },
      '/v1/outputs/{filename}': {
        get: {
          summary: 'Download an output',
          operationId: 'getOutput',
          description: `Streams the file inline with \`etag\`, \`content-length\` and \`cache-control: public, max-age=${LIMITS.outputCacheSeconds}, immutable\`. HEAD and single \`Range\` requests are supported.`,
          parameters: [
            { name: 'filename', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9._-]+$' } },
            { name: 'Range', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            '200': { description: 'The file.', content: { 'image/png': { schema: { type: 'string', contentEncoding: 'binary' } }, 'video/mp4': { schema: { type: 'string', contentEncoding: 'binary' } } } },
            '206': { description: 'The requested byte range.' },
            '304': { description: 'Not modified (If-None-Match matched the etag).' },
            '404': json('ErrorEnvelope', 'Unknown filename.'),
            '416': json('ErrorEnvelope', 'Range not satisfiable.'),
          },
        },
      },
      '/v1/assets': {
        post: {
          summary: 'Upload image assets',
          operationId: 'uploadAssets',
          description: `multipart/form-data; every part with a filename is stored. At most ${LIMITS.assets.maxFiles} files of ${LIMITS.assets.maxFileBytes / 1024 / 1024} MiB each; PNG, JPEG, WebP, GIF or SVG, judged by their bytes. Assets expire after 24 hours. Pass the keys in the \`assets\` field of a render or frame request.`,
          requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', additionalProperties: { type: 'string', contentEncoding: 'binary' } } } } },
          responses: { '200': json('AssetsResponse', 'Filename -> asset key.'), '400': json('ErrorEnvelope', '`no_file`, `too_many_files`, `file_too_large`, `not_an_image` or `bad_multipart`.'), '503': err503('`too_many_uploads`') },
        },
      },
      '/v1/check': {
        post: {
          summary: 'Compile a source without rendering',
          operationId: 'check',
          requestBody: { required: true, content: { 'application/json': { schema: ref('CheckRequest') } } },
          responses: { '200': json('CheckResponse', 'The diagnostics envelope.'), '400': err400 },
        },
      },
      '/healthz': { get: { summary: 'Liveness', operationId: 'healthz', responses: { '200': { description: '`ok` and a newline.', content: { 'text/plain': { schema: { type: 'string', const: 'ok\n' } } } } } } },
      '/openapi.json': { get: { summary: 'This document', operationId: 'openapi', responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } } } },
      '/test': { get: { summary: 'Synchronous smoke test: renders a built-in two-rectangle scene', operationId: 'smokeTest', responses: { '200': { description: 'The PNG.', content: { 'image/png': { schema: { type: 'string', contentEncoding: 'binary' } } } }, '500': json('ErrorEnvelope', 'The render failed.') } } },
      '/docs': { get: { summary: 'Human-readable API reference', operationId: 'docs', responses: { '200': { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } } } },
    },
    components: { schemas: components() },
  };
}

export function openApiText(): string {
  return JSON.stringify(buildOpenApi(), null, 2) + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes('--write')) {
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'openapi', 'openapi.json');
  writeFileSync(file, openApiText());
  console.log(`wrote ${file}`);
}
