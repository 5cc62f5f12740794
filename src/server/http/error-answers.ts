// How failures are answered: always the ErrorEnvelope `{error, code}` (service.md "Every 400 body is the
// ErrorEnvelope"), with the contract's status and code, never a stack or an internal message. `code` is always
// there: a client branches on it whatever the status.
import { redisUnavailable, Refused } from '../../contract/refusals.js';
import { isRedisUnavailable } from '../redis/outage.js';
import { ServiceError } from '../../contract/service-error.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { CODE, envelope, statusOf, type AnswerCode } from '../../contract/error-codes.js';
import type { ErrorEnvelope } from './schemas/error-envelope.js';
import { NOT_FOUND } from './http-error.js';
import { CORS_HEADERS } from './cors.js';

/** The 400 codes of the framework's own refusals (body and multipart limits). */
const FRAMEWORK_400 = new Map<string, ErrorEnvelope>(
  Object.entries({
    // the specification says 400, not 413
    FST_ERR_CTP_BODY_TOO_LARGE: envelope(CODE.body_too_large),
    FST_REQ_FILE_TOO_LARGE: envelope(CODE.file_too_large),
    FST_FILES_LIMIT: envelope(CODE.too_many_files),
    FST_INVALID_MULTIPART_CONTENT_TYPE: envelope(CODE.bad_multipart),
    FST_PARTS_LIMIT: envelope(CODE.bad_multipart),
    FST_FIELDS_LIMIT: envelope(CODE.bad_multipart),
  }),
);

/**
 * The codes of the framework's other 4xx answers (a route's own errors are ServiceErrors with their own codes). Each
 * is sent at its code's registered status, never the framework's, so a code has one status: a 413 the body limit did
 * not catch is body_too_large's 400 (the specification says 400, not 413), a status the registry has no code for is
bad_request's 400.
 */
const CLIENT_ERROR_CODES: Record<number, AnswerCode> = {
  401: CODE.unauthorized,
  405: CODE.method_not_allowed,
  406: CODE.not_acceptable,
  408: CODE.request_timeout,
  413: CODE.body_too_large,
  415: CODE.unsupported_media_type,
  416: CODE.range_not_satisfiable,
  429: CODE.rate_limited,
};

/**
 * The error handler of the app, the one way an error leaves: a ServiceError (HttpError, Refused) at its registered
 * status with its envelope and, for work the client may retry, `retry-after`; framework errors mapped to the
 * contract's codes.
 */
export function answerError(err: FastifyError | ServiceError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof ServiceError) return sendServiceError(reply, err);
  const known = FRAMEWORK_400.get(err.code);
  if (known) return sendEnvelope(reply, 400, known);
  // Redis mode: a job route during an outage is a 503 the client may retry, never a 500 or a wait for the outage
  if (isRedisUnavailable(err)) return sendServiceError(reply, new Refused(redisUnavailable()));
  const status = err.statusCode ?? 500;
  if (status === 404) return sendEnvelope(reply, 404, NOT_FOUND);
  if (status >= 400 && status < 500) {
    const code = CLIENT_ERROR_CODES[status] ?? CODE.bad_request;
    return sendEnvelope(reply, statusOf(code), { error: err.message, code });
  }
  req.log.error({ err }, 'unhandled error');
  return sendEnvelope(reply, 500, envelope(CODE.internal_error));
}

/** Unknown routes and methods. */
export function answerNotFound(_req: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendEnvelope(reply, 404, NOT_FOUND);
}

/**
 * Fastify's frameworkErrors: a URL the router cannot decode (`/%zz`) is a 400 bad_url, a path parameter over
 * maxParamLength a 404. These answers are given before routing, where no hook runs, so they carry the CORS headers
 * themselves.
 */
export function answerFrameworkError(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.headers(CORS_HEADERS);
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendEnvelope(reply, 404, NOT_FOUND);
  return sendEnvelope(reply, 400, envelope(CODE.bad_url));
}

/** A ServiceError's answer; one the client may retry says when (`retry-after`) and is not to be cached. */
function sendServiceError(reply: FastifyReply, e: ServiceError): FastifyReply {
  if (e.retryAfter !== undefined)
    reply.header('retry-after', String(Math.max(1, Math.ceil(e.retryAfter)))).header('cache-control', 'no-store');
  return sendEnvelope(reply, e.status, e.envelope as ErrorEnvelope);
}

/**
 * Sent as JSON text, so the route's response schema for the same status (GET /v1/jobs/{id} documents its 500 as a
 * JobError) neither re-shapes nor refuses an error answer.
 */
function sendEnvelope(reply: FastifyReply, status: number, envelope: ErrorEnvelope): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(envelope));
}
