// Response entries of route schemas: what each status carries and what it means. Fastify serializes JSON answers
// with them (fastify-type-provider-zod checks the answer against the schema) and @fastify/swagger documents them.
import { z } from 'zod';
import { ErrorEnvelope, FileBytes } from '../schemas.js';

/** A JSON answer, with an example body for the document when given. */
export function json<T extends z.ZodType>(schema: T, description: string, example?: unknown) {
  return { description, content: { 'application/json': example === undefined ? { schema } : { schema, example } } };
}

/** An ErrorEnvelope answer; the description lists its codes. */
export function errorAnswer(description: string, example?: ErrorEnvelope) {
  return json(ErrorEnvelope, description, example);
}

/** The 400 of the JSON routes, with the codes they can give. */
export function badRequestAnswer(codes: readonly string[]) {
  return errorAnswer(`Bad request: ${orList(codes)}.`);
}

/**
 * A 503 refusal (durability/admission.ts): the ErrorEnvelope and `retry-after`. Response headers are plain JSON
 * Schema: the provider documents only content, openapi.ts carries them into the document.
 */
export function refusalAnswer(codes: readonly string[]) {
  return {
    ...errorAnswer(`Full or stopping: ${orList(codes)}. Retry after \`retry-after\` seconds.`),
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
