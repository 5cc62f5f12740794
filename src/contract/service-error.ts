// The one error a request's answer is made from when it is not the route's success: a registered code (its status
// and default sentence are the registry's, error-codes.ts), the sentence, and what some codes add (`retry-after` of
// a refusal, the `problems` of invalid_args). The job domain throws it without knowing HTTP; the HTTP side's one
// error handler (src/server/http/error-answers.ts) answers it, as Fastify answers any thrown error.
import { envelope, statusOf, type AnswerCode, type ErrorStatus } from './error-codes.js';

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
