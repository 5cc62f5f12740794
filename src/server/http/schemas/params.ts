// The params object of each job kind. A refusal names the field and its range (`params.fps must be an integer from
// ...`); the numbers are src/contract's, which the renderer reads too, so the door and the render never disagree.
import { z } from 'zod';
import { LIMITS } from '../../../contract/limits.js';
import { closestName } from '../../../lang/index.js';
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
} from '../../../contract/outputs.js';

const L = LIMITS;

/**
 * A kind's params object: an unknown key is refused (400 `invalid_params`) naming it and the closest known key, as a
 * misspelt `params.widht` would otherwise be dropped and the render made at the default width.
 */
function strictParams<S extends z.core.$ZodLooseShape>(shape: S) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (iss) => {
      switch (iss.code) {
        case 'unrecognized_keys':
          return iss.keys
            .map((k) => {
              const s = closestName(k, known);
              return `params.${k} is not a parameter of this kind${s ? `; did you mean '${s}'?` : ''}`;
            })
            .join('; ')
            .concat(` (known: ${known.join(', ')})`);
        default:
          return 'params must be an object';
      }
    },
  });
}

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
  intField('quality', QUALITY.min, QUALITY.max, `${extra} See the quality table in docs/formats.md.`);

/** The message of 400 `no_alpha` (request-error.ts gives that code to a refusal at params.transparent). */
export const NO_ALPHA = (what: string) =>
  `params.transparent needs an output with alpha (video: vp9 or prores; frame: png or webp); ${what} has none`;
const WITH_ALPHA = VIDEO_CODECS.filter((c) => CODEC_FACTS[c].alpha).join(', ');

export const RenderParams = strictParams({
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
})
  .superRefine((p, ctx) => {
    if (p.from !== undefined && p.to !== undefined && !(p.to > p.from))
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'params.to must be greater than params.from' });
    const codec: VideoCodec = p.codec ?? 'h264';
    if (p.transparent && !CODEC_FACTS[codec].alpha)
      ctx.addIssue({ code: 'custom', path: ['transparent'], message: NO_ALPHA(`codec ${codec}`) });
  })
  .optional();

export const FrameParams = strictParams({
  at: numField('at', L.at.min, null, 'Seconds, 0 or more, default 0: the time the frame is taken at.'),
  width: widthField,
  height: heightField,
  cache: cacheField,
  format: enumField('format', FRAME_FORMATS, 'Added: png (default), jpeg or webp.'),
  quality: qualityField(`Added, jpeg and webp only: ${QUALITY.min}..${QUALITY.max}, default ${FRAME_QUALITY_DEFAULT}.`),
  transparent: boolField(
    'transparent',
    'Added, png and webp: RGBA, alpha 0 where the scene draws no background. jpeg: 400 `no_alpha`.',
  ),
})
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
export const GifParams = strictParams({
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
  height: intField('height', G.height.min, G.height.max, "Output height in pixels; default: by the scene's aspect."),
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
}).optional();

/** A number above 0 (exclusive), as the mesh's depth and size are. */
function positiveField(name: string, extra: string) {
  const msg = `params.${name} must be a number above 0`;
  return z.number({ error: msg }).gt(0, { error: msg }).optional().meta({ description: extra });
}

const M = L.mesh;
export const MeshParams = strictParams({
  depth: positiveField('depth', `Thickness along z, above 0; default ${M.defaults.depth}.`),
  size: positiveField('size', `Height of the bounding box, above 0; default ${M.defaults.size}.`),
  round: numField(
    'round',
    0,
    null,
    `Edge bevel, 0 or more; default ${M.defaults.round}. Its xy part is in SVG user units, as in the viewer.`,
  ),
  cache: cacheField,
}).optional();

const V = L.vectorize;
const VR = V.ranges;
export const VectorizeParams = strictParams({
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
  stitch: numField('stitch', 0, VR.stitchMax, `Largest gap joined between line ends, 0..${VR.stitchMax}; default 6.`),
  maxDim: numField(
    'maxDim',
    1,
    VR.maxDimMax,
    `Working size (longest side, pixels) the image is traced at, 1..${VR.maxDimMax}; default 700.`,
  ),
  cache: cacheField,
}).optional();
