// Zod schemas of the HTTP contract: the single source of truth for request validation (the routes carry them, Fastify
// runs them through fastify-type-provider-zod), the TypeScript types and the OpenAPI document. A schema with an `id`
// is an OpenAPI component.
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { LIMITS, ASSET_KEY_RE, OUTPUT_FILENAME_RE, UUID_RE } from '../contract/limits.js';
import { OUTPUT_MIME, type OutputMime } from '../contract/mime.js';
import { CODE, codeList, envelope, JOB_FAILURE_CODES } from '../contract/error-codes.js';
import {
  CODEC_FACTS,
  FRAME_ALPHA,
  FRAME_FORMATS,
  FRAME_QUALITY_DEFAULT,
  GIF_COLORS,
  GIF_LOOP,
  QUALITY,
  VIDEO_CODECS,
  type FrameFormat,
  type VideoCodec,
} from '../contract/outputs.js';

const L = LIMITS;

function intField(name: string, min: number, max: number, extra: string) {
  const msg = `params.${name} must be an integer from ${min} to ${max}`;
  return z
    .number({ error: msg })
    .int({ error: msg })
    .min(min, { error: msg })
    .max(max, { error: msg })
    .optional()
    .meta({ description: `${min}..${max}. ${extra}` });
}
function numField(name: string, min: number, max: number | null, extra: string) {
  const msg =
    max === null
      ? `params.${name} must be a number of ${min} or more`
      : `params.${name} must be a number from ${min} to ${max}`;
  let s = z.number({ error: msg }).min(min, { error: msg });
  if (max !== null) s = s.max(max, { error: msg });
  return s.optional().meta({ description: extra });
}

export const Source = z
  .string({ error: 'source is required and must be a non-empty string' })
  .min(1, { error: 'source is required and must be a non-empty string' })
  .max(L.sourceMaxChars, { error: `source is longer than ${L.sourceMaxChars} characters` })
  .meta({
    description: `The .cm scene source, at most ${L.sourceMaxChars} characters. Should start with \`runner "<semver>";\`.`,
  });

export const Assets = z
  .record(
    z.string().min(1, { error: 'assets keys must be non-empty paths' }),
    z
      .string({ error: 'assets values must be asset keys (asset_<32 hex>)' })
      .regex(ASSET_KEY_RE, { error: 'assets values must be asset keys (asset_<32 hex>)' }),
    { error: 'assets must be an object mapping in-source paths to asset keys' },
  )
  .optional()
  .meta({
    description: 'Maps an in-source path ("/img/earth.jpg") to a key returned by POST /v1/assets.',
    examples: [{ '/img/earth.jpg': 'asset_0123456789abcdef0123456789abcdef' }],
  });

const widthField = intField('width', L.width.min, L.width.max, 'Output width in pixels. See the output size rules.');
const heightField = intField(
  'height',
  L.height.min,
  L.height.max,
  'Output height in pixels. See the output size rules.',
);

/** params.cache: every enqueueing kind has it; the job's record keeps its params without it. */
const cacheField = z.boolean({ error: 'params.cache must be true or false' }).optional().meta({
  description:
    'Added: `false` renders afresh instead of answering from the render cache (as `Cache-Control: no-cache` does); the fresh output then serves identical jobs after it. Default `true`: a job identical to one whose output is still kept is ready at once with a copy of its bytes (`cached: true`).',
});
function enumField<T extends string>(name: string, values: readonly [T, ...T[]], extra: string) {
  const msg = `params.${name} must be one of ${values.join(', ')}`;
  return z.enum(values, { error: msg }).optional().meta({ description: extra });
}
function boolField(name: string, extra: string) {
  return z
    .boolean({ error: `params.${name} must be true or false` })
    .optional()
    .meta({ description: extra });
}
const qualityField = (extra: string) =>
  intField('quality', QUALITY.min, QUALITY.max, `${extra} See the quality table in the README.`);

/** The message of 400 `no_alpha` (request-error.ts gives that code to a refusal at params.transparent). */
export const NO_ALPHA = (what: string) =>
  `params.transparent needs an output with alpha (video: vp9 or prores; frame: png or webp); ${what} has none`;
const WITH_ALPHA = VIDEO_CODECS.filter((c) => CODEC_FACTS[c].alpha).join(', ');

export const RenderParams = z
  .object(
    {
      fps: intField('fps', L.fps.min, L.fps.max, `Frames per second, default ${L.fps.default}.`),
      duration: numField(
        'duration',
        L.duration.min,
        L.duration.max,
        `Seconds, ${L.duration.min}..${L.duration.max}; default: the scene's declared duration.`,
      ),
      width: widthField,
      height: heightField,
      cache: cacheField,
      codec: enumField(
        'codec',
        VIDEO_CODECS,
        "Added: h264 (default, MP4), h265 (MP4), vp9 (WebM), av1 (WebM), prores (MOV). The output's extension and `mime` follow.",
      ),
      quality: qualityField(
        `Added: ${QUALITY.min}..${QUALITY.max}, default ${QUALITY.default} (x264 CRF 18): mapped to each encoder's scale.`,
      ),
      from: numField(
        'from',
        0,
        L.duration.max,
        "Added: seconds; render only from this time of the scene (default 0). Frame times stay the whole scene's.",
      ),
      to: numField(
        'to',
        0,
        L.duration.max,
        "Added: seconds; render only up to this time (exclusive; default: the end). At most the clip's duration.",
      ),
      transparent: boolField(
        'transparent',
        `Added: keep alpha where the scene draws no background (codecs ${WITH_ALPHA}: VP9 yuva420p, ProRes 4444). Another codec: 400 \`no_alpha\`.`,
      ),
    },
    { error: 'params must be an object' },
  )
  .superRefine((p, ctx) => {
    if (p.from !== undefined && p.to !== undefined && !(p.to > p.from))
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'params.to must be greater than params.from' });
    const codec: VideoCodec = p.codec ?? 'h264';
    if (p.transparent && !CODEC_FACTS[codec].alpha)
      ctx.addIssue({ code: 'custom', path: ['transparent'], message: NO_ALPHA(`codec ${codec}`) });
  })
  .optional();

export const FrameParams = z
  .object(
    {
      at: numField('at', L.at.min, null, 'Seconds, 0 or more, default 0: the time the frame is taken at.'),
      width: widthField,
      height: heightField,
      cache: cacheField,
      format: enumField('format', FRAME_FORMATS, 'Added: png (default), jpeg or webp.'),
      quality: qualityField(
        `Added, jpeg and webp only: ${QUALITY.min}..${QUALITY.max}, default ${FRAME_QUALITY_DEFAULT}.`,
      ),
      transparent: boolField(
        'transparent',
        'Added, png and webp: RGBA, alpha 0 where the scene draws no background. jpeg: 400 `no_alpha`.',
      ),
    },
    { error: 'params must be an object' },
  )
  .superRefine((p, ctx) => {
    const format: FrameFormat = p.format ?? 'png';
    if (p.quality !== undefined && format === 'png')
      ctx.addIssue({
        code: 'custom',
        path: ['quality'],
        message: 'params.quality is for the lossy formats (jpeg, webp); a png is lossless',
      });
    if (p.transparent && !FRAME_ALPHA[format])
      ctx.addIssue({ code: 'custom', path: ['transparent'], message: NO_ALPHA(format) });
  })
  .optional();

const G = L.gif;
/** POST /v1/gif: like a render, with the GIF's own limits (service.md "The other operations"). */
export const GifParams = z
  .object(
    {
      fps: intField('fps', G.fps.min, G.fps.max, `Frames per second, default ${G.fps.default}.`),
      duration: numField(
        'duration',
        G.duration.min,
        G.duration.max,
        `Seconds, ${G.duration.min}..${G.duration.max}; default: the scene's declared duration.`,
      ),
      width: intField(
        'width',
        G.width.min,
        G.width.max,
        `Output width in pixels; default ${G.width.default} (when height is not given either).`,
      ),
      height: intField(
        'height',
        G.height.min,
        G.height.max,
        "Output height in pixels; default: by the scene's aspect.",
      ),
      cache: cacheField,
      loop: intField(
        'loop',
        GIF_LOOP.min,
        GIF_LOOP.max,
        'Added: 0 (default) = loop for ever; n = played n times, then it stops.',
      ),
      colors: intField(
        'colors',
        GIF_COLORS.min,
        GIF_COLORS.max,
        `Added: colours of the clip's palette, default ${GIF_COLORS.default}.`,
      ),
    },
    { error: 'params must be an object' },
  )
  .optional();

/** A number above 0 (exclusive), as the mesh's depth and size are. */
function positiveField(name: string, extra: string) {
  const msg = `params.${name} must be a number above 0`;
  return z.number({ error: msg }).gt(0, { error: msg }).optional().meta({ description: extra });
}

const M = L.mesh;
export const MeshParams = z
  .object(
    {
      depth: positiveField('depth', `Thickness along z, above 0; default ${M.defaults.depth}.`),
      size: positiveField('size', `Height of the bounding box, above 0; default ${M.defaults.size}.`),
      round: numField(
        'round',
        0,
        null,
        `Edge bevel, 0 or more; default ${M.defaults.round}. Its xy part is in SVG user units, as in the viewer.`,
      ),
      cache: cacheField,
    },
    { error: 'params must be an object' },
  )
  .optional();

const SVG_TOO_LARGE = `source is larger than ${M.sourceMaxBytes} bytes (64 KiB of UTF-8)`;
/** The SVG document of a mesh: counted in UTF-8 bytes (request-error.ts maps the byte check to source_too_large). */
export const SvgSource = z
  .string({ error: 'source is required and must be a non-empty string' })
  .min(1, { error: 'source is required and must be a non-empty string' })
  .max(M.sourceMaxBytes, { error: SVG_TOO_LARGE })
  .refine((s) => Buffer.byteLength(s, 'utf8') <= M.sourceMaxBytes, { error: SVG_TOO_LARGE })
  .meta({
    description: `An SVG document, at most ${M.sourceMaxBytes} bytes (64 KiB) of UTF-8. A malformed or empty SVG ends the job in \`error\` with a code (\`bad_svg\`, \`empty_svg\`).`,
  });

const V = L.vectorize;
const VR = V.ranges;
export const VectorizeParams = z
  .object(
    {
      strokeWidth: numField(
        'strokeWidth',
        0,
        VR.strokeWidthMax,
        `Stroke width of the output, above 0 and at most ${VR.strokeWidthMax}; default 6.`,
      ).refine((v) => v === undefined || v > 0, {
        error: `params.strokeWidth must be a number from 0 (exclusive) to ${VR.strokeWidthMax}`,
      }),
      threshold: numField('threshold', 0, 1, 'Darkness that counts as ink, 0..1; default 0.5.'),
      simplify: numField(
        'simplify',
        0,
        VR.simplifyMax,
        `Line simplification tolerance, 0..${VR.simplifyMax}; default 1.5.`,
      ),
      bridge: numField('bridge', 0, VR.bridgeMax, `Gap-closing passes, 0..${VR.bridgeMax}; default 2.`),
      stitch: numField(
        'stitch',
        0,
        VR.stitchMax,
        `Largest gap joined between line ends, 0..${VR.stitchMax}; default 6.`,
      ),
      maxDim: numField(
        'maxDim',
        1,
        VR.maxDimMax,
        `Working size (longest side, pixels) the image is traced at, 1..${VR.maxDimMax}; default 700.`,
      ),
      cache: cacheField,
    },
    { error: 'params must be an object' },
  )
  .optional();

const IMAGE_TOO_LARGE = `image is longer than ${V.imageMaxBase64Chars} characters of base64 (12 MiB)`;
export const InlineImage = z
  .string({ error: 'image must be a base64 string' })
  .min(1, { error: 'image must be a non-empty base64 string' })
  .max(V.imageMaxBase64Chars, { error: IMAGE_TOO_LARGE })
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, { error: 'image must be base64 (A-Z, a-z, 0-9, +, /, = padding)' })
  .optional()
  .meta({
    description: `A PNG or JPEG inline as base64, at most ${V.imageMaxBase64Chars} characters (12 MiB). Give either this or \`source\` + \`assets\`.`,
  });

const WEBHOOK_URL = 'webhook.url must be an http or https URL of at most 2048 characters';
const WEBHOOK_SECRET = 'webhook.secret must be a string of 1 to 256 characters';
export const Webhook = z
  .object(
    {
      url: z
        .string({ error: WEBHOOK_URL })
        .max(2048, { error: WEBHOOK_URL })
        .regex(/^https?:\/\/[^\s]+$/i, { error: WEBHOOK_URL })
        .meta({
          description:
            "Where the job's JSON view is POSTed when it ends. A host that resolves to a non-public address is refused unless WEBHOOK_ALLOW names it.",
        }),
      secret: z
        .string({ error: WEBHOOK_SECRET })
        .min(1, { error: WEBHOOK_SECRET })
        .max(256, { error: WEBHOOK_SECRET })
        .optional()
        .meta({
          description:
            'Signs each delivery: `X-CMRender-Signature` = hex HMAC-SHA256(secret, `X-CMRender-Timestamp` + "." + raw body).',
        }),
    },
    { error: 'webhook must be an object {url, secret?}' },
  )
  .meta({
    id: 'Webhook',
    description:
      'Added: called once when the job ends (ready or error), retried with backoff for about two minutes on a non-2xx answer or a network error.',
    examples: [{ url: 'https://example.com/hooks/cmrender', secret: 's3cr3t' }],
  });

export const RenderRequest = z
  .object({ source: Source, params: RenderParams, assets: Assets, webhook: Webhook.optional() })
  .meta({ id: 'RenderRequest' });
export const FrameRequest = z
  .object({ source: Source, params: FrameParams, assets: Assets, webhook: Webhook.optional() })
  .meta({ id: 'FrameRequest' });

const EXAMPLE_SCENE =
  'runner "0.0.3";\nuse std.shapes.*;\nscene hello() -> Frame { rect(width: 400px, height: 300px, fill: #ff6a00) }\n';
const EXAMPLE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><path d="M10 90 L50 10 L90 90 Z"/></svg>';
export const GifRequest = z
  .object({ source: Source, params: GifParams, assets: Assets, webhook: Webhook.optional() })
  .meta({ id: 'GifRequest', examples: [{ source: EXAMPLE_SCENE, params: { fps: 15, duration: 2, width: 480 } }] });
export const MeshRequest = z
  .object({ source: SvgSource, params: MeshParams, webhook: Webhook.optional() })
  .meta({ id: 'MeshRequest', examples: [{ source: EXAMPLE_SVG, params: { depth: 20, size: 100, round: 0 } }] });
const EITHER_IMAGE = 'give either source (an in-source path, with assets) or image (base64), not both and not neither';
export const VectorizeRequest = z
  .object({
    source: z
      .string({ error: 'source must be an in-source path such as "/img/sketch.png"' })
      .min(1, { error: 'source must be an in-source path such as "/img/sketch.png"' })
      .max(1024, { error: 'source is longer than 1024 characters' })
      .optional()
      .meta({ description: 'The in-source path of the image, a key of `assets` (e.g. "/img/sketch.png").' }),
    image: InlineImage,
    params: VectorizeParams,
    assets: Assets,
    webhook: Webhook.optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.source === undefined) === (b.image === undefined))
      ctx.addIssue({ code: 'custom', path: ['source'], message: EITHER_IMAGE });
  })
  .meta({
    id: 'VectorizeRequest',
    examples: [
      {
        image: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGP4DwABAQEANl9ngAAAAABJRU5ErkJggg==',
        params: { strokeWidth: 6, threshold: 0.5 },
      },
      {
        source: '/img/sketch.png',
        assets: { '/img/sketch.png': 'asset_0123456789abcdef0123456789abcdef' },
        params: { maxDim: 700 },
      },
    ],
  });
export type VectorizeRequest = z.infer<typeof VectorizeRequest>;

/** The request headers of the enqueueing routes: Idempotency-Key, Cache-Control; every other header passes through. */
export const EnqueueHeaders = z
  .object({
    'idempotency-key': z
      .string()
      .regex(/^[\x21-\x7e]{1,255}$/)
      .optional()
      .meta({
        description:
          'Added: 1 to 255 visible ASCII characters. The same key with the same request within 24 hours answers the same job; with another request, 422 `idempotency_mismatch`.',
        examples: ['6f1c1a52-render-intro-v3'],
      }),
    'cache-control': z.string().optional().meta({
      description:
        'Added: `no-cache` (or `no-store`) renders afresh instead of answering from the render cache, as `params.cache: false` does.',
    }),
  })
  .loose();
export const CheckRequest = z.object({ source: Source }).meta({ id: 'CheckRequest' });
export type RenderRequest = z.infer<typeof RenderRequest>;
export type FrameRequest = z.infer<typeof FrameRequest>;

export const JobKind = z.enum(['video', 'frame', 'gif', 'mesh', 'vectorize']);
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
        description: `The diagnostic code of a compile failure (\`PAR100\`, \`ASS001\`, ...); else ${codeList(JOB_FAILURE_CODES)} where the service names the failure; null for another render-stage failure.`,
      }),
    diagnostics: z.array(Diagnostic).optional().meta({ description: 'Added: every diagnostic of a compile failure.' }),
  })
  .meta({ id: 'JobError' });

export const Job = z.discriminatedUnion('status', [JobPending, JobReady, JobError]).meta({ id: 'Job' });
export type JobView = z.infer<typeof Job>;

/** Every error answer that is not a job's own (JobError): `code` is always there, the value to branch on. */
export const ErrorEnvelope = z
  .object({
    error: z.string().meta({
      description: 'What went wrong, for people. Where the contract fixes it (404 `not_found`), the same as `code`.',
    }),
    code: z.string().meta({
      description: 'The machine value: `not_found`, `bad_json`, `queue_full`, ... (each operation lists its own).',
    }),
  })
  .meta({ id: 'ErrorEnvelope', examples: [envelope(CODE.not_found)] });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

export const AssetsResponse = z
  .object({ assets: z.record(z.string(), z.string().regex(ASSET_KEY_RE)) })
  .meta({ id: 'AssetsResponse' });

export const CheckResponse = z
  .object({ ok: z.boolean(), diagnostics: z.array(Diagnostic) })
  .passthrough()
  .meta({ id: 'CheckResponse' });

/** The path of GET /v1/jobs/{id}. Anything else than a UUID names no job (404). */
export const JobIdParams = z.object({
  id: z.string().regex(UUID_RE).meta({ format: 'uuid', description: 'The `job_id` of a 202 answer.' }),
});

/** The path of GET /v1/outputs/{filename}. A name outside the pattern names no output (404). */
export const OutputParams = z.object({
  filename: z.string().regex(OUTPUT_FILENAME_RE).meta({ description: "The last segment of a ready job's `url`." }),
});

/** The conditional and range headers GET /v1/outputs/{filename} honours; every other header passes through. */
export const OutputRequestHeaders = z
  .object({
    range: z.string().optional().meta({
      description:
        'One `bytes=` range: 206 with that range; 416 when it starts past the end; ignored when malformed or multiple.',
    }),
    'if-none-match': z
      .string()
      .optional()
      .meta({ description: 'The `etag` of a copy the client holds: 304 when it matches.' }),
    'if-range': z
      .string()
      .optional()
      .meta({ description: 'The `range` applies only while the `etag` is still this one.' }),
  })
  .loose();

/**
 * The body of POST /v1/assets as documented: multipart/form-data, one file per part. The handler streams the parts
 * (Fastify's request body stays empty), so as a validator this schema accepts anything; the handler checks the files.
 */
export const AssetUpload = z
  .unknown()
  .meta({ type: 'object', additionalProperties: { type: 'string', contentEncoding: 'binary' } });

/** A file answer (PNG, MP4): a buffer or a stream, sent as it is (Fastify serializes neither); documented as bytes. */
export const FileBytes = z.custom<Buffer | Readable>().meta({ type: 'string', contentEncoding: 'binary' });
