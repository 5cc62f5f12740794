// A batch (POST /v1/batches): one scene rendered once per row, each row a job of its own with its `args`, its
// `params` over the batch's, and a `name` for its file in the archive; the batch's view (GET /v1/batches/{id}) and its
// rows. A row's params are checked against its kind's params schema once merged over the batch's (jobs/batches/
// submit-batch.ts), so a refusal names the row; how many rows a batch may hold is BATCH_MAX_ROWS (the config's). The
// batch's kinds and its view are the contract's (src/contract/batch-view.ts).
import { z } from 'zod';
import { UUID_RE } from '../../../contract/limits.js';
import { Source } from './sources.js';
import { Assets } from './assets.js';
import { Args } from './args.js';
import { Webhook } from './enqueue.js';
import { FrameParams, GifParams, RenderParams } from './params.js';
import { BatchKind } from '../../../contract/batch-view.js';
import type { ParamsCheck } from '../../jobs/batches/submit-batch.js';
import type { JobParams } from '../../jobs/store/port.js';

/** Each batch kind's params schema (the one its single-job POST takes). */
const BATCH_PARAMS = { frame: FrameParams, video: RenderParams, gif: GifParams } as const;

/** A batch kind's params read by its single-job schema: the check the admission lays each row's params over. */
export function batchParamsCheck(kind: BatchKind): ParamsCheck {
  return (params) => {
    const read = BATCH_PARAMS[kind].safeParse(params);
    return read.success ? { params: (read.data ?? {}) as JobParams } : { problem: read.error.issues[0]?.message };
  };
}

/** A row's name: its file in the archive is `<name>.<ext>`. */
export const ROW_NAME_RE = /^[A-Za-z0-9._-]{1,100}$/;
const ROW_NAME = 'a row name must be 1 to 100 letters, digits, ".", "_" or "-"';

const LooseParams = z
  .record(z.string(), z.union([z.number(), z.boolean(), z.string()]), { error: 'params must be an object' })
  .optional()
  .meta({
    description:
      "The params of the batch's kind, as its single-job POST takes them (`/v1/frame`, `/v1/render`, `/v1/gif`); checked per row once the row's own are laid over them.",
  });

export const BatchRowRequest = z
  .object({
    args: Args,
    name: z
      .string({ error: ROW_NAME })
      .regex(ROW_NAME_RE, { error: ROW_NAME })
      .refine((n) => n !== '.' && n !== '..' && n !== 'manifest', { error: ROW_NAME })
      .optional()
      .meta({
        description:
          "The row's file in the archive (`<name>.<ext>`), unique in the batch; default the row's index, zero-padded (`007`).",
      }),
    params: LooseParams,
  })
  .meta({ id: 'BatchRowRequest' });

export const BatchRequest = z
  .object({
    kind: BatchKind,
    source: Source,
    params: LooseParams,
    assets: Assets,
    webhook: Webhook.optional(),
    rows: z
      .array(BatchRowRequest, { error: 'rows must be an array of {args?, name?, params?}' })
      .min(1, { error: 'rows must hold at least one row' })
      .meta({ description: 'One job per row; at most `BATCH_MAX_ROWS` (default 1000).' }),
  })
  .meta({
    id: 'BatchRequest',
    examples: [
      {
        kind: 'frame',
        source:
          'runner "0.0.3";\nuse std.shapes.*;\nscene card(fill: Color = #ff6a00) -> Frame { rect(width: 64px, height: 36px, fill: fill) }\n',
        params: { width: 64, height: 36 },
        rows: [
          { args: { fill: '#ff0000' }, name: 'red' },
          { args: { fill: '#00ff00' }, name: 'green' },
        ],
      },
    ],
  });
export type BatchRequest = z.infer<typeof BatchRequest>;

export const BatchCreated = z
  .object({
    batch_id: z.uuid(),
    status: z.literal('pending'),
    kind: BatchKind,
    count: z.number().int(),
    jobs: z.array(z.object({ job_id: z.uuid(), name: z.string() })),
  })
  .meta({ id: 'BatchCreated' });

export const BatchIdParams = z.object({
  id: z.string().regex(UUID_RE).meta({ format: 'uuid', description: 'The `batch_id` of a 202 answer.' }),
});
