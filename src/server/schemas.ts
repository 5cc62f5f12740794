// Zod schemas: the single source of truth for request validation, the TypeScript types and the OpenAPI components.
import { z } from 'zod';
import { LIMITS, ASSET_KEY_RE } from '../contract/limits.js';

const L = LIMITS;

function intField(name: string, min: number, max: number, extra: string) {
  const msg = `params.${name} must be an integer from ${min} to ${max}`;
  return z.number({ error: msg }).int({ error: msg }).min(min, { error: msg }).max(max, { error: msg }).optional().meta({ description: `${min}..${max}. ${extra}` });
}
function numField(name: string, min: number, max: number | null, extra: string) {
  const msg = max === null ? `params.${name} must be a number of ${min} or more` : `params.${name} must be a number from ${min} to ${max}`;
  let s = z.number({ error: msg }).min(min, { error: msg });
  if (max !== null) s = s.max(max, { error: msg });
  return s.optional().meta({ description: extra });
}

export const Source = z
  .string({ error: 'source is required and must be a non-empty string' })
  .min(1, { error: 'source is required and must be a non-empty string' })
  .max(L.sourceMaxChars, { error: `source is longer than ${L.sourceMaxChars} characters` })
  .meta({ description: `The .cm scene source, at most ${L.sourceMaxChars} characters. Should start with \`runner "<semver>";\`.` });

export const Assets = z
  .record(
    z.string().min(1, { error: 'assets keys must be non-empty paths' }),
    z.string({ error: 'assets values must be asset keys (asset_<32 hex>)' }).regex(ASSET_KEY_RE, { error: 'assets values must be asset keys (asset_<32 hex>)' }),
    { error: 'assets must be an object mapping in-source paths to asset keys' },
  )
  .optional()
  .meta({ description: 'Maps an in-source path ("/img/earth.jpg") to a key returned by POST /v1/assets.', examples: [{ '/img/earth.jpg': 'asset_0123456789abcdef0123456789abcdef' }] });

const widthField = intField('width', L.width.min, L.width.max, 'Output width in pixels. See the output size rules.');
const heightField = intField('height', L.height.min, L.height.max, 'Output height in pixels. See the output size rules.');

export const RenderParams = z
  .object(
    {
      fps: intField('fps', L.fps.min, L.fps.max, `Frames per second, default ${L.fps.default}.`),
      duration: numField('duration', L.duration.min, L.duration.max, `Seconds, ${L.duration.min}..${L.duration.max}; default: the scene's declared duration.`),
      width: widthField,
      height: heightField,
    },
    { error: 'params must be an object' },
  )
  .optional();

export const FrameParams = z
  .object(
    {
      at: numField('at', L.at.min, null, 'Seconds, 0 or more, default 0: the time the frame is taken at.'),
      width: widthField,
      height: heightField,
    },
    { error: 'params must be an object' },
  )
  .optional();

export const RenderRequest = z.object({ source: Source, params: RenderParams, assets: Assets }).meta({ id: 'RenderRequest' });
export const FrameRequest = z.object({ source: Source, params: FrameParams, assets: Assets }).meta({ id: 'FrameRequest' });
export const CheckRequest = z.object({ source: Source }).meta({ id: 'CheckRequest' });
export type RenderRequest = z.infer<typeof RenderRequest>;
export type FrameRequest = z.infer<typeof FrameRequest>;

export const JobKind = z.enum(['video', 'frame']);
export type JobKind = z.infer<typeof JobKind>;

export const EnqueueResponse = z
  .object({ job_id: z.uuid(), status: z.literal('pending'), kind: JobKind })
  .meta({ id: 'EnqueueResponse' });

const JobBase = {
  job_id: z.uuid(),
  kind: JobKind,
};

export const Diagnostic = z
  .object({
    code: z.string(),
    message: z.string(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
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
    mime: z.enum(['image/png', 'video/mp4']),
    width: z.number().int().optional().meta({ description: 'Added: the real output width.' }),
    height: z.number().int().optional().meta({ description: 'Added: the real output height.' }),
  })
  .meta({ id: 'JobReady' });

export const JobError = z
  .object({
    ...JobBase,
    status: z.literal('error'),
    created_at: z.number().int().optional(),
    completed_at: z.number().int().optional(),
    message: z.string().meta({ description: 'A compile failure: `CODE text at line L, column C`. A render-stage failure: a short reason.' }),
    code: z.string().nullable().optional().meta({ description: 'The diagnostic code of a compile failure, null for a render-stage failure.' }),
    diagnostics: z.array(Diagnostic).optional().meta({ description: 'Added: every diagnostic of a compile failure.' }),
  })
  .meta({ id: 'JobError' });

export const Job = z.discriminatedUnion('status', [JobPending, JobReady, JobError]).meta({ id: 'Job' });
export type JobView = z.infer<typeof Job>;

export const ErrorEnvelope = z
  .object({ error: z.string(), code: z.string().optional() })
  .meta({ id: 'ErrorEnvelope' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

export const AssetsResponse = z
  .object({ assets: z.record(z.string(), z.string().regex(ASSET_KEY_RE)) })
  .meta({ id: 'AssetsResponse' });

export const CheckResponse = z
  .object({ ok: z.boolean(), diagnostics: z.array(Diagnostic) })
  .passthrough()
  .meta({ id: 'CheckResponse' });

/** A 400 answer: the ErrorEnvelope plus its HTTP status. */
export class HttpError extends Error {
  constructor(public status: number, public code: string | undefined, message: string) {
    super(message);
  }
  body(): ErrorEnvelope {
    return this.code ? { error: this.message, code: this.code } : { error: this.message };
  }
}

const CODE_ORDER = ['missing_source', 'source_too_large', 'invalid_params', 'invalid_assets'] as const;

/** Validates a parsed JSON body against a request schema, mapping the first issue to the contract's 400 codes. */
export function validateBody<T extends z.ZodTypeAny>(schema: T, body: unknown): z.infer<T> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError(400, 'bad_json', 'request body must be a JSON object');
  }
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  let best: { rank: number; code: string; message: string } | undefined;
  for (const issue of r.error.issues) {
    const head = issue.path[0];
    let code: string;
    if (head === 'source') code = issue.code === 'too_big' ? 'source_too_large' : 'missing_source';
    else if (head === 'params') code = 'invalid_params';
    else code = 'invalid_assets';
    const rank = CODE_ORDER.indexOf(code as (typeof CODE_ORDER)[number]);
    if (!best || rank < best.rank) best = { rank, code, message: issue.message };
  }
  throw new HttpError(400, best!.code, best!.message);
}
