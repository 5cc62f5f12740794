// A batch as clients see it (GET /v1/batches/{id}, its events, its webhook): the kinds a batch renders, its rows'
// states and the whole batch's. One definition, read by the batch rooms for its type and by the HTTP schemas for
// validation and the OpenAPI document (a schema with an `id` is a component).
import { z } from 'zod';

/** The kinds a batch renders: the scene kinds (a mesh or a vectorized drawing takes no args). */
export const BATCH_KINDS = ['frame', 'video', 'gif'] as const;
export const BatchKind = z.enum(BATCH_KINDS, { error: 'kind must be "frame", "video" or "gif"' });
export type BatchKind = z.infer<typeof BatchKind>;

export const BatchRowView = z
  .object({
    job_id: z.uuid(),
    name: z.string(),
    status: z.enum(['pending', 'ready', 'error']),
    url: z.string().optional().meta({ description: "A ready row's output: `/v1/outputs/<job_id>.<ext>`." }),
    code: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "A row ended in error: its job's `code` (`cancelled` when the batch was cancelled)." }),
  })
  .meta({ id: 'BatchRow' });

export const BatchView = z
  .object({
    batch_id: z.uuid(),
    kind: BatchKind,
    status: z.enum(['pending', 'ready', 'error']).meta({
      description:
        '`pending` while any row is pending; then `ready` when every row is ready, `error` when any row ended in error.',
    }),
    created_at: z.number().int(),
    count: z.number().int(),
    counts: z.object({ pending: z.number().int(), ready: z.number().int(), error: z.number().int() }),
    progress: z.number().min(0).max(1).meta({ description: 'Frames done over the frames of every row.' }),
    rows: z.array(BatchRowView),
  })
  .meta({ id: 'Batch' });
export type BatchView = z.infer<typeof BatchView>;
