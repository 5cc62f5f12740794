// POST /v1/check (added): compile without rendering, answer the diagnostics envelope and the signature of the scene a
// render would use (with the request's args), with the JSON Schema of its args.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CheckRequest, CheckResponse } from '../http/schemas/check.js';
import { badRequestAnswer, json, rateLimitedAnswer, unauthorizedAnswer } from '../http/responses.js';
import { check } from '../../lang/index.js';
import { checkedSceneArgs } from '../jobs/scene-args.js';
import { CODE } from '../../contract/error-codes.js';
import { withDocsLink } from '../jobs/diagnostic-links.js';

export const checkRoutes: FastifyPluginAsyncZod = async (app) => {
  const schema = {
    summary: 'Compile a source without rendering',
    operationId: 'check',
    tags: ['language'],
    body: CheckRequest,
    bodyExample: { source: 'runner "0.0.3";\nscene s() -> Frame {\n  compose [fgg]\n}\n' },
    response: {
      200: json(CheckResponse, 'The diagnostics envelope.', {
        ok: false,
        diagnostics: [{ code: 'NAM003', message: "unknown identifier 'fgg'", severity: 'error', line: 3, column: 12 }],
      }),
      400: badRequestAnswer([
        CODE.bad_json,
        CODE.missing_source,
        CODE.source_too_large,
        CODE.invalid_args,
        CODE.body_too_large,
      ]),
      401: unauthorizedAnswer(),
      429: rateLimitedAnswer(),
    },
  };
  app.post('/v1/check', { schema }, async (req, reply) => {
    const { source, args } = req.body;
    // args that do not fit the scene are the same 400 as a job's (one entry per problem)
    const described = checkedSceneArgs(source, args);
    const envelope = check(source, { args });
    // as plain objects: the language's Diagnostic interface has no index signature for the schema's open object type
    return reply.send({
      ...envelope,
      diagnostics: envelope.diagnostics.map((d) => ({ ...withDocsLink(d) })),
      scene: described.scene,
    });
  });
};
