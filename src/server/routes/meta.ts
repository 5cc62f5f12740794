// GET /healthz, GET /openapi.json, GET /test
import { readFile, rm, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { JobService } from '../jobs/job-service.js';
import { failureOf } from '../jobs/job-failure.js';
import { errorAnswer, fileAnswer, json, refusalAnswer } from '../http/responses.js';
import { tooManyTests, type Gate } from '../durability/admission.js';
import { sendRefusal } from '../http/refusal-reply.js';
import { CODE, envelope } from '../../contract/error-codes.js';

/** How the smoke render can fail: a render stage's codes (src/render/failure-reasons.ts). */
const SMOKE_FAILURES = [
  CODE.internal_error,
  CODE.encoder_failed,
  CODE.page_crashed,
  CODE.page_failed,
  CODE.out_of_memory,
] as const;
import { llmsText, type OpenApiLike } from '../llms-txt.js';

export interface MetaRoutesOptions {
  jobs: JobService;
  /** the OpenAPI document served at /openapi.json */
  openapi: () => Record<string, unknown>;
  /** where GET /test writes its PNG for the moment it is read back */
  tmpDir: string;
  /**
   * GET /test renders at once (TEST_CONCURRENCY): each holds a connection and a place at the render slot outside
   * MAX_QUEUED_JOBS, so a burst of probes would otherwise queue without bound in front of the jobs
   */
  tests: Gate;
  /** RETENTION_MS, said in /llms.txt */
  keptMs: number;
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

export const metaRoutes: FastifyPluginAsyncZod<MetaRoutesOptions> = async (
  app,
  { jobs, openapi, tmpDir, tests, keptMs },
) => {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness',
        operationId: 'healthz',
        tags: ['service'],
        response: {
          200: {
            description: '`ok` and a newline.',
            content: { 'text/plain': { schema: z.literal('ok\n'), example: 'ok\n' } },
          },
          503: refusalAnswer([
            CODE.storage_full,
            CODE.shutting_down,
            CODE.renderer_unavailable,
            CODE.redis_unavailable,
          ]),
        },
      },
    },
    async (_req, reply) => {
      // up but unable to take work (a full disk, a journal that cannot be written, a browser that cannot draw,
      // shutting down): said with a reason
      const down = await jobs.health();
      if (down) return sendRefusal(reply, down);
      return reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send('ok\n');
    },
  );

  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This document',
        operationId: 'openapi',
        tags: ['service'],
        response: {
          200: json(z.looseObject({}), 'OpenAPI 3.1', {
            openapi: '3.1.0',
            info: { title: 'cmrender', version: '0.1.0' },
            paths: {},
          }),
        },
      },
    },
    async (_req, reply) => reply.send(openapi()),
  );

  // written once, from the document of all routes (made when the first request comes: every route is registered)
  let llms: string | undefined;
  app.get(
    '/llms.txt',
    {
      schema: {
        summary: 'How to use this service, for agents',
        operationId: 'llmsTxt',
        tags: ['service'],
        description:
          'Plain text (llmstxt.org) written from this OpenAPI document: how to render (POST, poll, download), the limits, one example per kind and every route.',
        response: {
          200: {
            description: 'Markdown as plain text.',
            content: { 'text/plain': { schema: z.string(), example: '# cmrender\n\n> Asynchronous render service …' } },
          },
        },
      },
    },
    async (_req, reply) => {
      llms ??= llmsText(openapi() as OpenApiLike, keptMs);
      return reply.header('content-type', 'text/plain; charset=utf-8').send(llms);
    },
  );

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
      if (!tests.tryEnter()) return sendRefusal(reply, tooManyTests(tests.max));
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
