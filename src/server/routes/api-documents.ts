// GET /openapi.json (the document of every route) and GET /llms.txt (written from it, for agents): what the service
// says of itself. The readable pages (/docs, /docs/language) are swagger-ui's and language-docs.ts's.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { json } from '../http/responses.js';
import { llmsText, type OpenApiLike } from '../llms-txt.js';

export interface ApiDocumentRoutesOptions {
  /** the OpenAPI document served at /openapi.json */
  openapi: () => Record<string, unknown>;
  /** RETENTION_MS, said in /llms.txt */
  keptMs: number;
}

export const apiDocumentRoutes: FastifyPluginAsyncZod<ApiDocumentRoutesOptions> = async (app, { openapi, keptMs }) => {
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
};
