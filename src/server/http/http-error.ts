// The HTTP side's makers of the one error an answer is made from (src/contract/service-error.ts): routes and the
// request validator throw them, and the app's error handler (error-answers.ts) alone answers them. The status and the
// default sentence of each code are the registry's (src/contract/error-codes.ts), so a call site names only the code.
import { CODE, envelope, type AnswerCode, type CodeOfStatus } from '../../contract/error-codes.js';
import { ServiceError } from '../../contract/service-error.js';
import { describeDuration } from '../../contract/describe-duration.js';

/** A ServiceError (src/contract/service-error.ts) answered by its registered status; `statusCode` for Fastify. */
export class HttpError extends ServiceError {
  // a plain field, not a getter: Fastify writes statusCode on the errors it is handed (a validation error's 400)
  statusCode: number = this.status;
}

/** The answer for a code at its registered status: `message` says more than the registry's sentence where given. */
export function httpError(code: AnswerCode, message?: string, retryAfter?: number): HttpError {
  return new HttpError(code, {
    ...(message === undefined ? {} : { message }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
}

/** 400 with one of the contract's codes (`missing_source`, `unknown_asset`, ...). */
export function badRequest(code: CodeOfStatus<400>, message?: string): HttpError {
  return httpError(code, message);
}

/** The body of every 404: the contract fixes `error`; `code` says the same to a program. */
export const NOT_FOUND = envelope(CODE.not_found);

/**
 * The 404 of an unknown job or output: the contract's fixed body plus a `message` saying what was not found and how
 * long such things are kept (RETENTION_MS), since the usual reason is that it was, and is gone.
 */
export function notFoundKept(what: string, keptMs: number): typeof NOT_FOUND & { message: string } {
  return {
    ...NOT_FOUND,
    message: `${what} is not here: jobs and their outputs are kept ${describeDuration(keptMs)} after the job ends, then removed (and a job another API key made is not shown)`,
  };
}

/** 404 `{"error": "not_found", "code": "not_found"}`: an unknown job, output or route, told apart from nothing else. */
export function notFound(): HttpError {
  return httpError(CODE.not_found);
}
