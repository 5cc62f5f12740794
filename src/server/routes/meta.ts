// GET /healthz, GET /openapi.json, GET /test
import { readFile, rm, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { JobService } from '../jobs/job-service.js';
import { JobFailure } from '../../render/types.js';

/** The built-in two-rectangle scene of GET /test. */
export const SMOKE_SOURCE = `runner "0.0.3";
use std.shapes.*;
scene smoke() -> Frame {
  let bg = rect(width: 640px, height: 360px, fill: #102030);
  let fg = rect(width: 120px, height: 120px, fill: #ff3399);
  compose [bg, fg]
}
`;

export function metaRoutes(app: FastifyInstance, jobs: JobService, openapi: object, tmpDir: string): void {
  app.get('/healthz', async (_req, reply) => reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send('ok\n'));
  const text = JSON.stringify(openapi);
  app.get('/openapi.json', async (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(text));
  app.get('/test', async (_req, reply) => {
    await mkdir(tmpDir, { recursive: true });
    const out = join(tmpDir, `test-${randomUUID()}.png`);
    try {
      await jobs.renderDirect('frame', SMOKE_SOURCE, {}, out);
      const png = await readFile(out);
      return reply.header('content-type', 'image/png').header('cache-control', 'no-store').send(png);
    } catch (err) {
      app.log.warn({ err }, 'GET /test failed');
      return reply.code(500).send({ error: err instanceof JobFailure ? err.message : 'render failed' });
    } finally {
      await rm(out, { force: true });
    }
  });
}
