// The job as clients see it (GET /v1/jobs/{id}, webhooks, events): one view per status, so a client branches on
// `status` alone. One definition of the public shape, read by the job rooms for its type and by the HTTP schemas for
// validation and the OpenAPI document (a schema with an `id` is a component); the kinds of job are job-kind.ts's.
import { z } from 'zod';
import { OUTPUT_MIME, type OutputMime } from './mime.js';
import { codeList, JOB_FAILURE_CODES } from './error-codes.js';
import { JOB_KINDS } from './job-kind.js';

/** The kinds of job as a schema (the type is job-kind.ts's JobKind). */
export const JobKind = z.enum(JOB_KINDS);

const JobBase = {
  job_id: z.uuid(),
  kind: JobKind,
  scene: z
    .string()
    .optional()
    .meta({ description: 'Added, for a job given `args`: the name of the scene they rendered.' }),
  args: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: "Added: the `args` the job was given, as sent (absent: the scene's defaults)." }),
};

export const Diagnostic = z
  .object({
    code: z.string(),
    message: z.string(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
    docs: z
      .string()
      .optional()
      .meta({ description: "Added: the path of the code's explanation (`/v1/diagnostics/NAM003`)." }),
  })
  .passthrough()
  .meta({ id: 'Diagnostic' });

export const JobPending = z
  .object({
    ...JobBase,
    status: z.literal('pending'),
    created_at: z.number().int().meta({ description: 'Unix milliseconds.' }),
    queue_position: z.number().int().min(0).optional().meta({ description: 'Added: 0 = rendering now, 1 = next, ...' }),
    progress: z.number().min(0).max(1).optional().meta({ description: 'Added: frames done over frames planned.' }),
  })
  .meta({ id: 'JobPending' });

export const JobReady = z
  .object({
    ...JobBase,
    status: z.literal('ready'),
    created_at: z.number().int().optional(),
    completed_at: z.number().int().optional(),
    url: z.string().meta({ description: 'Relative path on this host: /v1/outputs/<job_id>.<ext>' }),
    warnings: z.array(Diagnostic).optional().meta({
      description:
        "Added: the source's warnings (severity `warning`: a library call that renders silently wrong, LIB001-LIB006, or an operator on an animated value, ANI001), as `POST /v1/check` gives them; the output is rendered as written. Absent when there are none.",
    }),
    cached: z.boolean().optional().meta({
      description:
        "Added: `true` when the job was answered from the render cache (its output is a copy of an identical earlier job's bytes); absent otherwise.",
    }),
    mime: z.enum(Object.values(OUTPUT_MIME) as [OutputMime, ...OutputMime[]]),
    width: z.number().int().optional().meta({
      description:
        "Added: the real output width (a mesh: its bounding box in mesh units, rounded; a vectorized drawing: its image's pixels).",
    }),
    height: z
      .number()
      .int()
      .optional()
      .meta({ description: 'Added: the real output height (a mesh: `size`, rounded).' }),
  })
  .meta({ id: 'JobReady' });

export const JobError = z
  .object({
    ...JobBase,
    status: z.literal('error'),
    created_at: z.number().int().optional(),
    completed_at: z.number().int().optional(),
    message: z.string().meta({
      description: 'A compile failure: `CODE text at line L, column C`. A render-stage failure: a short reason.',
    }),
    code: z
      .string()
      .nullable()
      .optional()
      .meta({
        description: `The diagnostic code of a compile failure (\`PAR100\`, \`ASS001\`, ...); else ${codeList(JOB_FAILURE_CODES)} for every other failure (the contract allows null; this service never sends it).`,
      }),
    diagnostics: z.array(Diagnostic).optional().meta({ description: 'Added: every diagnostic of a compile failure.' }),
  })
  .meta({ id: 'JobError' });

export const Job = z.discriminatedUnion('status', [JobPending, JobReady, JobError]).meta({ id: 'Job' });
export type JobView = z.infer<typeof Job>;
