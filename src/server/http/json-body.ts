// Request bodies are JSON whatever their content-type (service.md "Requests": curl's `-d` sends form encoding), except
// multipart uploads, which @fastify/multipart streams to POST /v1/assets.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CODE } from '../../contract/error-codes.js';
import { badRequest } from './http-error.js';

/** type/subtype at the start of a content-type header (RFC 9110 token characters). */
const MEDIA_TYPE = /^\s*[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+\s*(;|$)/;

/** Replaces the app's body parsers with one JSON parser for every content-type. Call before registering multipart. */
export function acceptJsonBodies(app: FastifyInstance): void {
  // An empty or unparsable content-type header is treated like a missing one (Fastify would answer 415 before any
  // parser runs).
  app.addHook('onRequest', async (req) => {
    const ct = req.headers['content-type'];
    if (ct !== undefined && !MEDIA_TYPE.test(ct)) delete req.headers['content-type'];
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJson);
}

function parseJson(
  _req: FastifyRequest,
  body: string | Buffer,
  done: (err: Error | null, value?: unknown) => void,
): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    done(null, JSON.parse(text));
  } catch {
    done(badRequest(CODE.bad_json, 'request body is not valid JSON'));
  }
}
