// POST /v1/check (added): compile without rendering, answer the diagnostics envelope.
import type { FastifyInstance } from 'fastify';
import { CheckRequest, validateBody } from '../schemas.js';
import { check } from '../../lang/index.js';

export function checkRoutes(app: FastifyInstance): void {
  app.post('/v1/check', async (req, reply) => {
    const body = validateBody(CheckRequest, req.body);
    return reply.send(check(body.source));
  });
}
