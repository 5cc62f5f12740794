// Fastify checks each request part against its route's zod schema (fastify-type-provider-zod's validator); this is
// its schemaErrorFormatter: it turns the zod issues into the contract's answers (service.md "Requests").
//
// - body: 400 with the code of the first rule broken, in the contract's order: not a JSON object (`bad_json`), then
//   `source` (`missing_source`, `source_too_large`), then a vectorize `image` (`image_too_large`, `invalid_image`),
//   then `params` (`invalid_params`; `no_alpha`: transparent asked of a codec or format without alpha), then `args`
//   when it is not an object (`invalid_args`; what its values must be is the scene's, checked in jobs/submit.ts), then `assets`
//   (`invalid_assets`), then `webhook` (`bad_webhook`). `error` is the schema's own message, e.g. "params.fps must be an integer from 1 to 60".
// - headers: the only one checked is Idempotency-Key (400 `bad_idempotency_key`).
// - path parameters (a job id that is not a UUID, an output name outside ^[A-Za-z0-9._-]+$): 404 not_found, since
//   such a path names nothing.
import type { FastifyError, FastifySchemaValidationError } from 'fastify';
import { CODE } from '../../contract/error-codes.js';
import { invalidArgs, type ServiceError } from '../../contract/service-error.js';
import { badRequest, notFound } from './http-error.js';

/** The request part that failed (Fastify does not export the name of this type). */
type RequestPart = NonNullable<FastifyError['validationContext']>;

const BODY_RULES = [
  CODE.bad_json,
  CODE.missing_source,
  CODE.source_too_large,
  CODE.image_too_large,
  CODE.invalid_image,
  CODE.invalid_kind,
  CODE.invalid_params,
  CODE.no_alpha,
  CODE.invalid_args,
  CODE.invalid_rows,
  CODE.invalid_assets,
  CODE.bad_webhook,
] as const;
type BodyRule = (typeof BODY_RULES)[number];

export function requestError(issues: FastifySchemaValidationError[], part: RequestPart): ServiceError {
  if (part === 'params') return notFound();
  // the only header a route checks is Idempotency-Key
  if (part === 'headers') return badRequest(CODE.bad_idempotency_key);
  if (part !== 'body') return badRequest(CODE.bad_request, `${part}: ${issues[0]?.message ?? 'invalid'}`);
  let first: { rule: BodyRule; message: string; path: string } | undefined;
  for (const issue of issues) {
    const rule = ruleOf(issue);
    if (!first || BODY_RULES.indexOf(rule) < BODY_RULES.indexOf(first.rule))
      first = { rule, message: rowNamed(issue), path: issue.instancePath };
  }
  if (!first || first.rule === CODE.bad_json) return badRequest(CODE.bad_json);
  // `args` that is not an object: one problem, in the same shape as the scene's own (jobs/submit.ts)
  if (first.rule === CODE.invalid_args)
    return invalidArgs([
      { path: argsPath(first.path), expected: 'an object', given: 'another JSON value', message: first.message },
    ]);
  return badRequest(first.rule, first.message);
}

/** The issue's sentence; about a batch's row, it names the row first (`rows[3]: ...`). */
function rowNamed(issue: FastifySchemaValidationError): string {
  const message = issue.message ?? 'invalid request body';
  const m = /^\/rows\/(\d+)/.exec(issue.instancePath);
  return m ? `rows[${m[1]}]: ${message}` : message;
}

/** Where `args` sits in the body: a job's, or a batch row's (`rows[3].args`). */
function argsPath(instancePath: string): string {
  const m = /^\/rows\/(\d+)/.exec(instancePath);
  return m ? `rows[${m[1]}].args` : 'args';
}

/** The rule an issue breaks, from the body field it is about (the provider reports the issue path as instancePath). */
function ruleOf(issue: FastifySchemaValidationError): BodyRule {
  const field = issue.instancePath.split('/')[1] ?? '';
  if (field === '') return CODE.bad_json;
  // a mesh's SVG is counted in bytes by a refinement (a custom issue): its message says "larger than"
  if (field === 'source')
    return issue.keyword === 'too_big' || /larger than/.test(issue.message ?? '')
      ? CODE.source_too_large
      : CODE.missing_source;
  if (field === 'image') return issue.keyword === 'too_big' ? CODE.image_too_large : CODE.invalid_image;
  if (field === 'kind') return CODE.invalid_kind; // the standalone runner's body
  if (field === 'params')
    // transparent asked of an output that has no alpha (the schemas' refinement at params.transparent)
    return issue.instancePath === '/params/transparent' && issue.keyword === 'custom'
      ? CODE.no_alpha
      : CODE.invalid_params;
  if (field === 'webhook') return CODE.bad_webhook;
  if (field === 'args') return CODE.invalid_args;
  // a batch's row (POST /v1/batches): its params and args as a job's, anything else about the rows their own code
  if (field === 'rows') {
    const sub = issue.instancePath.split('/')[3];
    return sub === 'params' ? CODE.invalid_params : sub === 'args' ? CODE.invalid_args : CODE.invalid_rows;
  }
  // the body schemas have no other field: unknown ones are stripped, not checked
  return CODE.invalid_assets;
}
