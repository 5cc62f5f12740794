// Admission control: what the service refuses when it is full or not ready, and how it says so. Every refusal is a
// 503 with the ErrorEnvelope and a `retry-after` header (seconds), so clients back off instead of hammering. The
// contract's, so the job domain, the stores, the routes, a Redis-mode worker and the standalone runner raise the same
// refusal without importing one another (the output budget's own, storageFull, is storage/disk-budget.ts's: its words
// name the budget's protection window).
import { describeDuration } from './describe-duration.js';
import { CODE, messageOf, type CodeOfStatus } from './error-codes.js';
import { ServiceError } from './service-error.js';

/** The codes of the 503s (src/contract/error-codes.ts). */
export type RefusalCode = CodeOfStatus<503>;

export interface Refusal {
  code: RefusalCode;
  error: string;
  retryAfterSeconds: number;
}

/** A refusal thrown (a job's creation past the queue cap, an upload past the budget...), answered as its 503. */
export class Refused extends ServiceError {
  constructor(readonly refusal: Refusal) {
    super(refusal.code, { message: refusal.error, retryAfter: refusal.retryAfterSeconds });
  }
}

/** The refusal for a full queue: the wait hint grows with the backlog (about one second per queued job, 1..60 s). */
export function queueFull(queued: number, cap: number): Refusal {
  return {
    code: CODE.queue_full,
    error: `the render queue is full (${queued} of ${cap} jobs waiting); retry later`,
    retryAfterSeconds: Math.min(60, Math.max(1, Math.ceil(queued / 10))),
  };
}

/** `keptMs`: how long uploads are kept (RETENTION_MS), after which their bytes are free again. */
export function assetsFull(usedBytes: number, incomingBytes: number, capBytes: number, keptMs: number): Refusal {
  return {
    code: CODE.storage_full,
    error: `asset storage is full (${usedBytes} of ${capBytes} bytes held by uploads younger than ${describeDuration(keptMs)}, ${incomingBytes} more asked); retry later`,
    retryAfterSeconds: 60,
  };
}

export function diskFull(freeBytes: number, minFreeBytes: number): Refusal {
  return {
    code: CODE.storage_full,
    error: `the disk holding the service's data is full (${Math.max(0, freeBytes)} bytes free, ${minFreeBytes} kept free); retry later`,
    retryAfterSeconds: 60,
  };
}

export function journalUnwritable(): Refusal {
  return {
    code: CODE.storage_full,
    error: 'the job journal cannot be written (the disk is full); retry later',
    retryAfterSeconds: 60,
  };
}

export function tooManyUploads(max: number): Refusal {
  return {
    code: CODE.too_many_uploads,
    error: `too many uploads at once (at most ${max}); retry shortly`,
    retryAfterSeconds: 1,
  };
}

/** GET /test: TEST_CONCURRENCY smoke renders already rendering or waiting for the render slot. */
export function tooManyTests(max: number): Refusal {
  return {
    code: CODE.too_many_tests,
    error: `too many GET /test renders at once (at most ${max}); retry shortly`,
    retryAfterSeconds: 1,
  };
}

/** The renderer's browser cannot draw even after relaunches (its GL is gone); it keeps trying to recover. */
export function rendererUnavailable(fault: string): Refusal {
  return {
    code: CODE.renderer_unavailable,
    error: `the renderer cannot draw now (${fault}); retry later`,
    retryAfterSeconds: 10,
  };
}

/** The object store (STORAGE_URL=s3://…) cannot be reached or refuses: nothing was stored. */
export function storageUnavailable(): Refusal {
  return {
    code: CODE.storage_unavailable,
    error: messageOf(CODE.storage_unavailable),
    retryAfterSeconds: 10,
  };
}

/** With REDIS_URL: Redis, which holds the jobs, cannot be reached now (an outage, a restart). */
export function redisUnavailable(): Refusal {
  return {
    code: CODE.redis_unavailable,
    error: messageOf(CODE.redis_unavailable),
    retryAfterSeconds: 5,
  };
}

export function shuttingDown(): Refusal {
  return { code: CODE.shutting_down, error: messageOf(CODE.shutting_down), retryAfterSeconds: 5 };
}

/** The renderer is still warming up (Chromium's launch and its first pages): jobs are taken once it is ready. */
export function starting(): Refusal {
  return {
    code: CODE.starting,
    error: messageOf(CODE.starting),
    retryAfterSeconds: 2,
  };
}

/** The event loop is saturated (metrics/event-loop-delay.ts's measure): this process answers late. */
export function overloaded(what: string): Refusal {
  return { code: CODE.overloaded, error: `the service is overloaded (${what}); retry shortly`, retryAfterSeconds: 5 };
}
