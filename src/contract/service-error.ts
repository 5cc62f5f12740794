// The one error a request's answer is made from when it is not the route's success: a registered code (its status
// and default sentence are the registry's, error-codes.ts), the sentence, and what some codes add (`retry-after` of
// a refusal, the `problems` of invalid_args), and its makers. The job domain throws it without knowing HTTP; the HTTP
// side's one error handler (src/server/http/error-answers.ts) answers it, as Fastify answers any thrown error.
import { CODE, envelope, statusOf, type AnswerCode, type CodeOfStatus, type ErrorStatus } from './error-codes.js';

export interface ServiceErrorOptions {
  /** the sentence of `error`; default the registry's */
  message?: string;
  /** seconds a client should wait before trying again (sent as `retry-after`: a refusal of work it may retry) */
  retryAfter?: number;
  /** fields the envelope carries beside `error` and `code` (400 invalid_args: `problems`) */
  details?: Record<string, unknown>;
}

export class ServiceError extends Error {
  readonly code: AnswerCode;
  readonly status: ErrorStatus;
  readonly retryAfter?: number;
  readonly details?: Record<string, unknown>;
  constructor(code: AnswerCode, o: ServiceErrorOptions = {}) {
    const body = envelope(code, o.message);
    super(body.error);
    this.name = 'ServiceError';
    this.code = code;
    this.status = statusOf(code);
    if (o.retryAfter !== undefined) this.retryAfter = o.retryAfter;
    if (o.details !== undefined) this.details = o.details;
  }

  /** The ErrorEnvelope `{error, code, ...details}`. */
  get envelope(): { error: string; code: AnswerCode } & Record<string, unknown> {
    return { error: this.message, code: this.code, ...this.details };
  }
}

/** The error for a code at its registered status: `message` says more than the registry's sentence where given. */
export function serviceError(code: AnswerCode, message?: string, retryAfter?: number): ServiceError {
  return new ServiceError(code, {
    ...(message === undefined ? {} : { message }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
}

/** 400 with one of the contract's codes (`missing_source`, `unknown_asset`, ...). */
export function badRequest(code: CodeOfStatus<400>, message?: string): ServiceError {
  return serviceError(code, message);
}

/** One way a scene's args do not fit it (src/lang's ArgProblem: the contract names its fields, not the language). */
export interface ArgsProblem {
  path: string;
  expected: string;
  given: string;
  message: string;
}

/** 400 `invalid_args` with one entry per problem; `error` is the first problem's sentence (and how many more). */
export function invalidArgs(problems: readonly ArgsProblem[]): ServiceError {
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more: see problems)` : '';
  return new ServiceError(CODE.invalid_args, {
    message: `${problems[0]?.message ?? 'invalid args'}${more}`,
    details: { problems: problems.map(({ path, expected, given, message }) => ({ path, expected, given, message })) },
  });
}
