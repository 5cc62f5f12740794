// How any failure becomes a job's end: a message a client reads and a registered code (src/contract/error-codes.ts)
// or a compile failure's diagnostic code, never null. One door for the job service, a Redis-mode worker, the
// standalone runner and GET /test, so the same failure reads and branches the same everywhere. Failures that come
// from inside (the page's exceptions, Node's errors) are said in plain words, never as an internal message ("Invalid
// array length", a stack line, a file path): the raw text goes to the log only. A failure carries its code from where
// it happens (a StageFault: ffmpeg's pipe, a page that could not answer; the page's own codes, draw_too_large for a
// draw past what its heap gives): nothing here reads an error's words.
import { isNoSpace } from '../contract/no-space.js';
import { outOfMemory } from './worker-thread.js';
import { NO_SPACE_REASON, timeLimitReason } from '../contract/job-reasons.js';
import { CODE, messageOf, type JobFailureCode } from '../contract/error-codes.js';
import { JobFailure, type FailureDiagnostic, type JobCode } from './renderer-port.js';

export { isNoSpace };

/** A job's end in error: what its record, its webhook and the runner's 500 say. */
export interface JobEnd {
  message: string;
  code: JobCode;
  diagnostics?: FailureDiagnostic[];
}

/** The end a registered code says by itself (its registry sentence). */
export const endOf = (code: JobFailureCode, message = messageOf(code)): JobEnd => ({ message, code });

/**
 * A render stage's failure that knows its code where it happens (ffmpeg failed: encoder_failed; the page or its
 * browser could not answer: page_crashed). Its message is the raw detail, for the log; the client reads the
 * registry's sentence.
 */
export class StageFault extends Error {
  constructor(
    readonly code: JobFailureCode,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = 'StageFault';
  }
}

/** An error the drawing page reported ({code, message} of the page API). */
export interface PageError {
  code: string;
  message: string;
}

/** The end of a job whose drawing page reported an error (ASS001 is placed by the caller). */
export function pageFailure(e: PageError): JobEnd {
  switch (e.code) {
    case 'draw_too_large':
      return endOf(
        CODE.out_of_memory,
        'render failed: the frame is too large to draw (the drawing page ran out of memory building it)',
      );
    case 'draw_failed':
      return endOf(CODE.page_failed);
    case 'context_lost':
      return endOf(CODE.page_failed, 'render failed: the drawing page lost its WebGL context');
    case 'font_unavailable':
      return endOf(CODE.page_failed, 'render failed: the text font could not be loaded');
    default:
      return endOf(CODE.internal_error, 'render failed: internal error in the drawing page');
  }
}

/** The end of a job a render stage (Node, Playwright, ffmpeg) failed unexpectedly. */
export function stageFailure(err: unknown, kind?: string): JobEnd {
  if (isNoSpace(err)) return endOf(CODE.storage_full, NO_SPACE_REASON);
  // ffmpeg's own words (its stderr, paths) are for the log, not the client
  if (err instanceof StageFault)
    return err.code === CODE.encoder_failed && kind === 'gif'
      ? endOf(CODE.encoder_failed, 'render failed: the GIF encoder failed')
      : endOf(err.code);
  // V8's own RangeError (an array, a string or a buffer past what the heap gives, the call stack; Node's own
  // RangeErrors carry a code and are ours to fix) or a thread's heap past its limit
  if ((err instanceof RangeError && !('code' in err)) || outOfMemory(err)) return endOf(CODE.out_of_memory);
  return endOf(CODE.internal_error, 'render failed: internal error');
}

/** The JobFailure a render stage throws for an unexpected error. */
export const stageError = (err: unknown, kind?: string): JobFailure => {
  const end = stageFailure(err, kind);
  return new JobFailure(end.message, end.code);
};

/**
 * How a job that did not finish ends. timedOut: it ran past its time limit (limitMs); aborted: the service stopped
 * it (a shutdown, not a client); `known`: the caller's own errors that carry their end (the server's storage).
 */
export function failureOf(
  err: unknown,
  how: { timedOut: boolean; aborted?: boolean; limitMs: number },
  known?: (err: unknown) => JobEnd | undefined,
): JobEnd {
  if (how.timedOut) return endOf(CODE.timeout, timeLimitReason(how.limitMs));
  if (how.aborted) return endOf(CODE.interrupted);
  if (err instanceof JobFailure)
    return err.diagnostics
      ? { message: err.message, code: err.code, diagnostics: err.diagnostics }
      : { message: err.message, code: err.code };
  return known?.(err) ?? stageFailure(err);
}
