// A route that hijacks its reply (to stream: /mcp's transport, the SSE events stream) writes the raw response itself,
// and Fastify then sends none of the headers its hooks put on the reply: the CORS headers (http/cors.ts), the
// `x-request-id` (http/request-log.ts), the rate-limit fields. A browser refuses an answer without
// access-control-allow-origin even after the preflight said yes (issue 55). This hands them to the raw response
// before the hijack; Node merges them into the writeHead that comes later (its own headers win on a clash).
import type { FastifyReply } from 'fastify';

/** Hijacks `reply`, keeping the headers set on it so far. */
export function hijackKeepingHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
  reply.hijack();
}
