// Response entries of route schemas: what each status carries and what it means. Fastify serializes JSON answers
// with them (fastify-type-provider-zod checks the answer against the schema) and @fastify/swagger documents them.
import { z } from 'zod';
import { ErrorEnvelope, FileBytes } from '../schemas.js';
import { NOT_FOUND } from './http-error.js';

/**
 * A JSON answer. `example` is its body in the OpenAPI document (openapi.ts carries it into the media type); the
 * document's test wants one on every JSON answer, so a new route gives it here, as it gives `bodyExample` for its
 * request.
 */
export function json<T extends z.ZodType>(schema: T, description: string, example?: unknown) {
  return { description, content: { 'application/json': example === undefined ? { schema } : { schema, example } } };
}

/** An ErrorEnvelope answer; the description lists its codes. */
export function errorAnswer(description: string, example?: ErrorEnvelope) {
  return json(ErrorEnvelope, description, example);
}

/** The 404 of a route whose path names something (a job, an output): the contract's fixed body. */
export function notFoundAnswer(what: string) {
  return errorAnswer(`${what}: \`{"error": "not_found", "code": "not_found"}\`.`, NOT_FOUND);
}

/** The 400 of the JSON routes, with the codes they can give; the example is the first code's answer. */
export function badRequestAnswer(codes: readonly string[], example: ErrorEnvelope = exampleOf(codes[0]!)) {
  return errorAnswer(`Bad request: ${orList(codes)}.`, example);
}

/** What the service says for a code, as the examples of the document show it. */
const EXAMPLE_ERRORS: Record<string, string> = {
  bad_json: 'request body must be a JSON object',
  missing_source: 'source is required and must be a non-empty string',
  no_file: 'expected a multipart/form-data body with at least one file',
  queue_full: 'the render queue is full (64 of 64 jobs waiting); retry later',
  too_many_uploads: 'too many uploads at once (at most 4); retry shortly',
  too_many_tests: 'too many GET /test renders at once (at most 2); retry shortly',
};
function exampleOf(code: string): ErrorEnvelope {
  return { error: EXAMPLE_ERRORS[code] ?? code.replaceAll('_', ' '), code };
}

/**
 * A 503 refusal (durability/admission.ts): the ErrorEnvelope and `retry-after`. Response headers are plain JSON
 * Schema: the provider documents only content, openapi.ts carries them into the document.
 */
export function refusalAnswer(codes: readonly string[], example: ErrorEnvelope = exampleOf(codes[0]!)) {
  return {
    ...errorAnswer(`Full or stopping: ${orList(codes)}. Retry after \`retry-after\` seconds.`, example),
    headers: { 'retry-after': { description: 'Seconds to wait before retrying.', type: 'integer', minimum: 1 } },
  };
}

/** A file answer in one of the given media types. */
export function fileAnswer(description: string, mediaTypes: readonly string[]) {
  return { description, content: Object.fromEntries(mediaTypes.map((m) => [m, { schema: FileBytes }])) };
}

/** An answer without a body (documented with no content: the provider writes `undefined` as JSON Schema `null`). */
export function emptyAnswer(description: string) {
  return z.undefined().describe(description);
}

/** `a`, `b` or `c` */
function orList(codes: readonly string[]): string {
  const quoted = codes.map((c) => `\`${c}\``);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** 401 of the routes that need a key when API_KEYS is set (http/api-keys.ts). */
export function unauthorizedAnswer() {
  return {
    ...errorAnswer(
      '`unauthorized`: `API_KEYS` is set and the request has no `Authorization: Bearer <key>` with one of them (reads need one only with `API_KEYS_READS=1`).',
      { error: 'an API key is needed: Authorization: Bearer <key>', code: 'unauthorized' },
    ),
    headers: { 'www-authenticate': { description: '`Bearer`', type: 'string' } },
  };
}

/** 429 of the POSTs past their rate limit (http/rate-limits.ts) or, for job POSTs, their client's queue quota. */
export function rateLimitedAnswer(codes: readonly string[] = ['rate_limited']) {
  return {
    ...errorAnswer(
      `${orList(codes)}: more POSTs than \`RATE_LIMIT_POSTS\` in \`RATE_LIMIT_WINDOW_MS\` from this key (or, without keys, this address)${codes.includes('client_queue_full') ? '; or this client already has `MAX_QUEUED_JOBS_PER_CLIENT` jobs waiting or rendering' : ''}.`,
      { error: 'rate limit reached: 10 POSTs per 60 s; retry in 42 s', code: 'rate_limited' },
    ),
    headers: {
      'retry-after': { description: 'Seconds until the window resets.', type: 'integer', minimum: 1 },
      'ratelimit-policy': {
        description: 'IETF RateLimit-Policy: `"posts";q=<limit>;w=<window seconds>`.',
        type: 'string',
      },
      ratelimit: { description: 'IETF RateLimit: `"posts";r=<remaining>;t=<seconds to reset>`.', type: 'string' },
    },
  };
}
