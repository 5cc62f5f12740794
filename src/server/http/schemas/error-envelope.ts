// One shape for every refusal of every route (and the runner's), so a client reads `code` the same way everywhere.
import { z } from 'zod';
import { CODE, envelope } from '../../../contract/error-codes.js';

/** One thing wrong with a request's `args` (400 `invalid_args`): where, what the scene declares, what came. */
export const ArgProblem = z
  .object({
    path: z.string().meta({ description: 'Where: `args`, `args.accent`, `args.names[2]`, `args.who.first`.' }),
    expected: z.string().meta({ description: "What the scene's declaration accepts there." }),
    given: z.string().meta({ description: 'What the request gave there (`nothing` for a missing one).' }),
    message: z.string().meta({ description: 'The whole sentence, with "did you mean" for an unknown name.' }),
  })
  .meta({ id: 'ArgProblem' });

/** Every error answer that is not a job's own (JobError): `code` is always there, the value to branch on. */
export const ErrorEnvelope = z
  .object({
    error: z.string().meta({
      description: 'What went wrong, for people. Where the contract fixes it (404 `not_found`), the same as `code`.',
    }),
    code: z.string().meta({
      description: 'The machine value: `not_found`, `bad_json`, `queue_full`, ... (each operation lists its own).',
    }),
    message: z.string().optional().meta({
      description:
        'Added, on the 404 of an unknown job or output: what was not found, and how long jobs and outputs are kept.',
    }),
    problems: z
      .array(ArgProblem)
      .optional()
      .meta({ description: "400 `invalid_args` only: one entry per problem with the request's `args`." }),
  })
  .meta({ id: 'ErrorEnvelope', examples: [envelope(CODE.not_found)] });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
