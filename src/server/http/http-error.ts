// An answer that is not the route's success: an HTTP status and the contract's ErrorEnvelope `{error, code}`.
// Routes and the request validator throw it; the error handler sends it as it is.
import type { ErrorEnvelope } from '../schemas.js';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly envelope: ErrorEnvelope,
  ) {
    super(envelope.error);
  }
}

/** 400 with one of the contract's codes (`missing_source`, `unknown_asset`, ...). */
export function badRequest(code: string, message: string): HttpError {
  return new HttpError(400, { error: message, code });
}

/** The body of every 404: the contract fixes `error`; `code` says the same to a program. */
export const NOT_FOUND: ErrorEnvelope = { error: 'not_found', code: 'not_found' };

/** 404 `{"error": "not_found", "code": "not_found"}`: an unknown job, output or route, told apart from nothing else. */
export function notFound(): HttpError {
  return new HttpError(404, NOT_FOUND);
}
