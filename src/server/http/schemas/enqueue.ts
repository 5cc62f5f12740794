// The enqueueing POSTs (render, frame, gif, mesh, vectorize) take one body shape each and answer alike (202), so one
// handler serves them all (routes/enqueue.ts).
import { describeDuration } from '../../../contract/describe-duration.js';
import { IDEMPOTENCY_TTL_MS } from '../../jobs/idempotency.js';
import { z } from 'zod';
import { Source, SvgSource, InlineImage } from './sources.js';
import { RenderParams, FrameParams, GifParams, MeshParams, VectorizeParams } from './params.js';
import { Assets } from './assets.js';
import { Args } from './args.js';
import { JobKind } from '../../../contract/job-view.js';

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
  .object({ source: Source, params: RenderParams, args: Args, assets: Assets, webhook: Webhook.optional() })
  .meta({ id: 'RenderRequest' });
export const FrameRequest = z
  .object({ source: Source, params: FrameParams, args: Args, assets: Assets, webhook: Webhook.optional() })
  .meta({ id: 'FrameRequest' });

const EXAMPLE_SCENE =
  'runner "0.0.3";\nuse std.shapes.*;\nscene hello() -> Frame { rect(width: 400px, height: 300px, fill: #ff6a00) }\n';
const EXAMPLE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><path d="M10 90 L50 10 L90 90 Z"/></svg>';
export const GifRequest = z
  .object({ source: Source, params: GifParams, args: Args, assets: Assets, webhook: Webhook.optional() })
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
          // a schema is made once, before any configuration: it says the longest a key lives (a shorter RETENTION_MS
          // shortens it; the route's description says the configured time)
          `Added: 1 to 255 visible ASCII characters. The same key with the same request within ${describeDuration(IDEMPOTENCY_TTL_MS)} answers the same job; with another request, 422 \`idempotency_mismatch\`.`,
        examples: ['6f1c1a52-render-intro-v3'],
      }),
    'cache-control': z.string().optional().meta({
      description:
        'Added: `no-cache` (or `no-store`) renders afresh instead of answering from the render cache, as `params.cache: false` does.',
    }),
  })
  .loose();
export type RenderRequest = z.infer<typeof RenderRequest>;
export type FrameRequest = z.infer<typeof FrameRequest>;

export const EnqueueResponse = z
  .object({ job_id: z.uuid(), status: z.literal('pending'), kind: JobKind })
  .meta({ id: 'EnqueueResponse' });
