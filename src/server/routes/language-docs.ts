// GET /docs/language (the language reference as a readable page) and GET /llms-full.txt (llms.txt's full text: how
// to use the service, then the whole language reference, as plain text for agents), both from src/lang/reference.ts.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { languageReference } from '../../lang/reference.js';
import { llmsText, type OpenApiLike } from '../llms-txt.js';
import { markdownToHtml } from '../markdown-html.js';

export interface LanguageDocsOptions {
  /** the OpenAPI document (llms-full.txt begins with llms.txt, which is written from it) */
  openapi: () => Record<string, unknown>;
  /** RETENTION_MS, said in /llms-full.txt */
  keptMs: number;
}

// the page's own inline style, nothing else: no script, no other origin
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

export const languageDocRoutes: FastifyPluginAsyncZod<LanguageDocsOptions> = async (app, { openapi, keptMs }) => {
  const markdown = languageReference();
  const html = markdownToHtml(markdown, 'The .cm language: cmrender');
  let full: string | undefined;

  app.get(
    '/docs/language',
    {
      schema: {
        summary: 'The language reference',
        description:
          'An HTML page: syntax, types and units, scenes and time, runner pins, the standard library by module and every diagnostic code. The same text is docs/language.md in the repository.',
        operationId: 'languageReference',
        tags: ['language'],
        response: {
          200: { description: 'HTML', content: { 'text/html': { schema: z.string(), example: '<!doctype html>…' } } },
        },
      },
    },
    async (_req, reply) =>
      reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .header('content-security-policy', PAGE_CSP)
        .send(html),
  );

  app.get(
    '/llms-full.txt',
    {
      schema: {
        summary: 'How to use this service and the whole language, for agents',
        description:
          "Plain text (llmstxt.org's full file): `/llms.txt`, then the language reference of `/docs/language`.",
        operationId: 'llmsFullTxt',
        tags: ['service'],
        response: {
          200: {
            description: 'Markdown as plain text.',
            content: { 'text/plain': { schema: z.string(), example: '# cmrender\n\n> Asynchronous render service …' } },
          },
        },
      },
    },
    async (_req, reply) => {
      full ??= `${llmsText(openapi() as OpenApiLike, keptMs)}\n${markdown}`;
      return reply.header('content-type', 'text/plain; charset=utf-8').send(full);
    },
  );
};
