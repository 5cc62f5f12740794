// POST /v1/check compiles without rendering and answers the same Diagnostic a job's compile failure carries
// (jobs.ts), so a client reads both alike.
import { z } from 'zod';
import { Source } from './sources.js';
import { Diagnostic } from '../../../contract/job-view.js';
import { Args } from './args.js';

export const CheckRequest = z.object({ source: Source, args: Args }).meta({ id: 'CheckRequest' });

const SceneParam = z
  .object({
    name: z.string(),
    type: z.string().meta({ description: 'The declared type as written: `String`, `Duration`, `List<Color>`, ...' }),
    default: z.unknown().meta({
      description: 'The default in the form `args` takes it (`"2s"`, `"#ff3399"`); null: none, or not a plain literal.',
    }),
    required: z.boolean().meta({ description: 'No default: `args` must give it.' }),
    refused: z
      .string()
      .optional()
      .meta({ description: 'Present when the type cannot be passed as data (`Frame`, a function): why.' }),
  })
  .meta({ id: 'SceneParam' });

export const SceneSignature = z
  .object({
    name: z.string(),
    kind: z.enum(['scene', 'component', 'filter']),
    params: z.array(SceneParam),
    schema: z.record(z.string(), z.unknown()).meta({
      description: "The JSON Schema (2020-12) of the scene's `args`: types, unit patterns, defaults, required.",
    }),
  })
  .meta({ id: 'SceneSignature' });

export const CheckResponse = z
  .object({
    ok: z.boolean(),
    diagnostics: z.array(Diagnostic),
    scene: SceneSignature.nullable().optional().meta({
      description:
        "Added: the scene a render would use (with the request's `args`), its parameters and the JSON Schema of its args; null when the source does not parse or renders a plain binding.",
    }),
  })
  .passthrough()
  .meta({ id: 'CheckResponse' });
