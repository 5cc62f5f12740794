// GET /v1/diagnostics (every code explained) and GET /v1/diagnostics/{code} (one; 404 `not_found` for a code no part
// of the service emits), from the language's registry (src/lang/diagnostic-docs.ts).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DiagnosticCodeParams, DiagnosticExplanation, DiagnosticList } from '../http/schemas/diagnostics.js';
import { json, notFoundAnswer, unauthorizedAnswer } from '../http/responses.js';
import { NOT_FOUND } from '../http/http-error.js';
import { DIAGNOSTIC_DOCS, diagnosticDoc, diagnosticDocsPath, type DiagnosticDoc } from '../../lang/diagnostic-docs.js';

const view = (d: DiagnosticDoc) => ({ ...d, docs: diagnosticDocsPath(d.code) });
const EXAMPLE = view(diagnosticDoc('NAM003')!);

export const diagnosticRoutes: FastifyPluginAsyncZod = async (app) => {
  const all = { diagnostics: DIAGNOSTIC_DOCS.map(view) };
  app.get(
    '/v1/diagnostics',
    {
      schema: {
        summary: 'Every diagnostic code, explained',
        description:
          "Each code a source can meet (parse, checks, runner pin, evaluation, the service's image check) with a title, an explanation, and a wrong and a right source. A diagnostic's `docs` field links to its entry.",
        operationId: 'listDiagnostics',
        tags: ['language'],
        response: {
          200: json(DiagnosticList, 'Every code.', { diagnostics: [EXAMPLE] }),
          401: unauthorizedAnswer(),
        },
      },
    },
    async (_req, reply) => reply.header('cache-control', 'public, max-age=3600').send(all),
  );
  app.get(
    '/v1/diagnostics/:code',
    {
      schema: {
        summary: 'One diagnostic code, explained',
        operationId: 'explainDiagnostic',
        tags: ['language'],
        params: DiagnosticCodeParams,
        response: {
          200: json(DiagnosticExplanation, 'The explanation.', EXAMPLE),
          401: unauthorizedAnswer(),
          404: notFoundAnswer('No such code'),
        },
      },
    },
    async (req, reply) => {
      const d = diagnosticDoc(req.params.code.toUpperCase());
      if (!d) return reply.code(404).send(NOT_FOUND);
      return reply.header('cache-control', 'public, max-age=3600').send(view(d));
    },
  );
};
