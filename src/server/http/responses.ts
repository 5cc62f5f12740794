// Response entries of route schemas: what each status carries and what it means. Fastify serializes JSON answers
// with them (fastify-type-provider-zod checks the answer against the schema) and @fastify/swagger documents them.
import { z } from 'zod';
import { ErrorEnvelope } from './schemas/error-envelope.js';
import { FileBytes } from './schemas/outputs.js';
import { NOT_FOUND } from './http-error.js';
import { CODE, codeList, envelope, type AnswerCode, type CodeOfStatus } from '../../contract/error-codes.js';

/**
 * A JSON answer. `example` is its body in the OpenAPI document (openapi.ts carries it into the media type); the
 * document's test wants one on every JSON answer, so a new route gives it here, as it gives `bodyExample` for its
 * request.
 */
export function json<T extends z.ZodType>(schema: T, description: string, example?: unknown) {
  return { description, content: { 'application/json': example === undefined ? { schema } : { schema, example } } };
}

/**
 * An ErrorEnvelope answer that gives one of `codes` (registered in src/contract/error-codes.ts, at this answer's
 * status): the document lists them as the enum of its `code` (openapi.ts), the description names them.
 */
export function errorAnswer(
  description: string,
  codes: readonly AnswerCode[],
  // the first code's answer, in the registry's words
  example: ErrorEnvelope = envelope(codes[0]!),
) {
  return {
    description,
    content: { 'application/json': { schema: ErrorEnvelope, example, codes } },
  };
}

/** The 404 of a route whose path names something (a job, an output): the contract's fixed body. */
export function notFoundAnswer(what: string) {
  return errorAnswer(`${what}: \`${JSON.stringify(NOT_FOUND)}\`.`, [CODE.not_found], NOT_FOUND);
}

/** The 400 of the JSON routes, with the codes they can give; the example is the first code's answer. */
export function badRequestAnswer(codes: readonly CodeOfStatus<400>[], example?: ErrorEnvelope) {
  return errorAnswer(`Bad request: ${codeList(codes)}.`, codes, example);
}

/**
 * A 503 refusal (src/contract/refusals.ts): the ErrorEnvelope and `retry-after`. Response headers are plain JSON
 * Schema: the provider documents only content, openapi.ts carries them into the document.
 */
export function refusalAnswer(codes: readonly CodeOfStatus<503>[], example?: ErrorEnvelope) {
  return {
    ...errorAnswer(`Full or stopping: ${codeList(codes)}. Retry after \`retry-after\` seconds.`, codes, example),
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

/** 401 of the routes that need a key when API_KEYS is set (http/api-keys.ts). */
export function unauthorizedAnswer() {
  return {
    ...errorAnswer(
      '`unauthorized`: `API_KEYS` is set and the request has no `Authorization: Bearer <key>` with one of them (reads need one only with `API_KEYS_READS=1`).',
      [CODE.unauthorized],
    ),
    headers: { 'www-authenticate': { description: '`Bearer`', type: 'string' } },
  };
}

/** 429 of the POSTs past their rate limit (http/rate-limits.ts) or, for job POSTs, their client's queue quota. */
export function rateLimitedAnswer(codes: readonly CodeOfStatus<429>[] = [CODE.rate_limited]) {
  return {
    ...errorAnswer(
      `${codeList(codes)}: more POSTs than \`RATE_LIMIT_POSTS\` in \`RATE_LIMIT_WINDOW_MS\` from this key (or, without keys, this address)${codes.includes(CODE.client_queue_full) ? '; or this client already has `MAX_QUEUED_JOBS_PER_CLIENT` jobs waiting or rendering' : ''}.`,
      codes,
      envelope(CODE.rate_limited, 'rate limit reached: 10 POSTs per 60 s; retry in 42 s'),
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
