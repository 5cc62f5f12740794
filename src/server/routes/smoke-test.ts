// GET /test: a synchronous smoke render of a built-in scene, outside the job store, in this process's render slots;
// bounded by TEST_CONCURRENCY, refused (503 too_many_tests) rather than queued past it.
import { readFile, rm, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { JobService } from '../jobs/job-service.js';
import { failureOf } from '../jobs/job-failure.js';
import { errorAnswer, fileAnswer, refusalAnswer } from '../http/responses.js';
import { Refused, tooManyTests } from '../../contract/refusals.js';
import type { Gate } from '../http/gate.js';
import { CODE, envelope } from '../../contract/error-codes.js';

/** How the smoke render can fail: a render stage's codes (src/render/failure-reasons.ts). */
const SMOKE_FAILURES = [
  CODE.internal_error,
  CODE.encoder_failed,
  CODE.page_crashed,
  CODE.page_failed,
  CODE.out_of_memory,
] as const;

export interface SmokeTestRoutesOptions {
  jobs: JobService;
  /** where GET /test writes its PNG for the moment it is read back */
  tmpDir: string;
  /**
   * GET /test renders at once (TEST_CONCURRENCY): each holds a connection and a place at the render slot outside
   * MAX_QUEUED_JOBS, so a burst of probes would otherwise queue without bound in front of the jobs
   */
  tests: Gate;
}

/** The built-in two-rectangle scene of GET /test. */
export const SMOKE_SOURCE = `runner "0.0.3";
use std.shapes.*;
scene smoke() -> Frame {
  let bg = rect(width: 640px, height: 360px, fill: #102030);
  let fg = rect(width: 120px, height: 120px, fill: #ff3399);
  compose [bg, fg]
}
`;

export const smokeTestRoutes: FastifyPluginAsyncZod<SmokeTestRoutesOptions> = async (app, { jobs, tmpDir, tests }) => {
  app.get(
    '/test',
    {
      schema: {
        summary: 'Synchronous smoke test: renders a built-in two-rectangle scene',
        operationId: 'smokeTest',
        tags: ['service'],
        response: {
          200: fileAnswer('The PNG.', ['image/png']),
          500: errorAnswer(
            'The render failed, with the code a job that failed so would end with.',
            SMOKE_FAILURES,
            envelope(CODE.page_crashed),
          ),
          503: refusalAnswer([CODE.too_many_tests, CODE.renderer_unavailable]),
        },
        description:
          'At most `TEST_CONCURRENCY` (2) of these render or wait for the render slot at once; past it `503` `too_many_tests` with `retry-after`, before anything is drawn.',
      },
    },
    async (_req, reply) => {
      // refused rather than queued: a probe that waits behind a long render tells nothing, and every waiting one
      // would hold a socket
      if (!tests.tryEnter()) throw new Refused(tooManyTests(tests.max));
      const out = join(tmpDir, `test-${randomUUID()}.png`);
      try {
        await mkdir(tmpDir, { recursive: true });
        await jobs.renderDirect('frame', SMOKE_SOURCE, {}, out);
        const png = await readFile(out);
        return reply.header('content-type', 'image/png').header('cache-control', 'no-store').send(png);
      } catch (err) {
        app.log.warn({ err }, 'GET /test failed');
        // the one failureOf a job's end goes through: the same failure, the same code
        const end = failureOf(err, { timedOut: false, limitMs: 0 });
        return reply
          .code(end.code === CODE.renderer_unavailable ? 503 : 500)
          .send({ error: end.message, code: end.code });
      } finally {
        tests.leave();
        await rm(out, { force: true });
      }
    },
  );
};
