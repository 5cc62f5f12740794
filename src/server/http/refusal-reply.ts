// A refusal (jobs/refusals.ts says why a job or upload cannot be taken now) as an HTTP answer: 503, the
// error envelope and Retry-After. The rooms that decide refusals know nothing of Fastify; this is where they meet it.
import type { FastifyReply } from 'fastify';
import { envelope } from '../../contract/error-codes.js';
import type { Refusal } from '../jobs/refusals.js';

/** Sends a refusal: 503, ErrorEnvelope {error, code}, retry-after. */
export function sendRefusal(reply: FastifyReply, r: Refusal): FastifyReply {
  return reply
    .code(503)
    .header('retry-after', String(Math.max(1, Math.ceil(r.retryAfterSeconds))))
    .header('cache-control', 'no-store')
    .send(envelope(r.code, r.error));
}
