// Fully open CORS (render-service-spec.txt §8): every answer carries access-control-allow-origin, -allow-headers,
// -allow-methods and -expose-headers, all `*` (allow-headers adds `authorization`, which a `*` does not cover).
//
// @fastify/cors does it: its onRequest hook puts allow-origin and expose-headers on every answer that reaches routing
// (routes, validation and body-limit errors, 404s, the docs page), and it answers every OPTIONS request as a preflight
// (204 with all four, also without the preflight request headers). What the plugin cannot do, done with its own
// values (CORS_HEADERS):
// - allow-headers and allow-methods on answers that are not preflights: the plugin sends them to preflights only (the
//   only answers browsers read them from), and no option changes that; the specification asks for them everywhere;
// - answers Fastify gives before routing (frameworkErrors, in error-answers.ts): no hook runs for them.
import type { FastifyInstance } from 'fastify';
import cors from '@fastify/cors';

const OPTIONS = {
  origin: '*',
  methods: '*',
  // under the Fetch standard a `*` here never covers Authorization (Firefox and Safari hold to that): named apart
  allowedHeaders: '*, authorization',
  exposedHeaders: '*',
  // an OPTIONS request without Origin or Access-Control-Request-Method is answered like a preflight, not refused
  strictPreflight: false,
  maxAge: 86400,
} as const;

/** The four headers as @fastify/cors sends them to a preflight. */
export const CORS_HEADERS = {
  'access-control-allow-origin': OPTIONS.origin,
  'access-control-allow-methods': OPTIONS.methods,
  'access-control-allow-headers': OPTIONS.allowedHeaders,
  'access-control-expose-headers': OPTIONS.exposedHeaders,
} as const;

export async function openCors(app: FastifyInstance): Promise<void> {
  await app.register(cors, OPTIONS);
  app.addHook('onRequest', async (_req, reply) => {
    reply.header('access-control-allow-methods', CORS_HEADERS['access-control-allow-methods']);
    reply.header('access-control-allow-headers', CORS_HEADERS['access-control-allow-headers']);
  });
}
