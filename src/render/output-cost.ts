// What an encode costs by codec, quality and content (issue 32 rows 5 and 9): the encoder's time against its own
// default-quality cost on a flat picture, and the bytes it writes per pixel-frame. Both were measured by
// `npx tsx bench/encode-cost.ts` (docs/durability.md, "Output bytes and encode cost"): a flat picture, a detailed one
// that stands still (a noise image) and a detailed one that moves. A job's content sits between flat and detailed by
// its `detail` (0..1: how little its images compress, job-assets.ts), still when the scene reads no time signal.
import type { VideoCodec } from '../contract/outputs.js';
import { crfOf, proresProfileOf, QUALITY } from '../contract/outputs.js';

/** How detailed a job's pictures are: 0 flat (shapes, gradients), 1 noise; still: every frame the same picture. */
export interface Detail {
  level: number;
  still: boolean;
}

export const FLAT: Detail = { level: 0, still: true };

/**
 * A CRF codec's quality tier: `normal` below quality 80, `high` from 80 (CRF 10 or less on x264's and x265's 0..51
 * scale) and `lossless` at 100 (CRF 0). ProRes has its profiles instead.
 */
type Tier = 'normal' | 'high' | 'lossless';
function tierOf(quality: number): Tier {
  return quality >= QUALITY.max ? 'lossless' : quality >= 80 ? 'high' : 'normal';
}

/** [flat, detailed still, detailed moving] */
type Three = readonly [number, number, number];

/**
 * The encoder's time against the same codec at the default quality on a flat picture (CODEC_ENCODE_FACTOR is that
 * cost against x264's), from the encoder's CPU time in bench/encode-cost.ts: x264 and x265 at 1280x720, 120 frames;
 * VP9 and AV1 at 640x360, 60 frames, less the ~410 ms every ffmpeg run costs there (x264's two sizes give 410 ms
 * plus 8 ns a pixel-frame). What multiplies the time is detail that moves (x265: 6.1 times its flat time, x264 4.7);
 * a higher quality adds little (x264 CRF 8: 6.2) and x265's CRF 0 is no dearer than its CRF 18.
 */
const TIME: Record<Exclude<VideoCodec, 'prores'>, Record<Tier, Three>> = {
  h264: { normal: [1, 1.1, 4.7], high: [1.2, 1.3, 6.2], lossless: [1.1, 1.1, 4.7] },
  h265: { normal: [1, 1.15, 6.1], high: [1, 1.2, 6.1], lossless: [1, 1.25, 6.1] },
  vp9: { normal: [1, 2, 4.4], high: [1.9, 2.6, 6.9], lossless: [1.9, 2.6, 6.9] },
  av1: { normal: [1, 1.3, 2.7], high: [1, 1.35, 2.7], lossless: [1, 1.35, 2.7] },
};
/** ProRes (intra only: still or moving is the same work), against HQ on a flat picture; 4444 with alpha (1280x720). */
const PRORES_TIME: { hq: Three; p4444: Three } = { hq: [1, 2.3, 2.4], p4444: [1.6, 3.1, 3.4] };

/** Bytes per pixel-frame: x264 and x265 at 1280x720, 120 frames, VP9 and AV1 at 640x360, 60 frames (a still clip's
 * first key frame is spread over its frames, so a short still clip writes more a frame than this says). */
const BYTES: Record<Exclude<VideoCodec, 'prores'>, Record<Tier, Three>> = {
  h264: { normal: [0.0001, 0.0093, 0.32], high: [0.0001, 0.0137, 0.48], lossless: [0.0003, 0.0183, 0.77] },
  h265: { normal: [0.0001, 0.0095, 0.31], high: [0.0001, 0.0135, 0.45], lossless: [0.0001, 0.0175, 0.59] },
  vp9: { normal: [0.0002, 0.022, 0.35], high: [0.0002, 0.027, 0.56], lossless: [0.0002, 0.027, 0.56] },
  av1: { normal: [0.0002, 0.031, 0.37], high: [0.0002, 0.031, 0.37], lossless: [0.0002, 0.031, 0.37] },
};
/** ProRes HQ (profile 3) and 4444 measured at 1280x720; proxy, LT and standard by Apple's nominal rates against HQ. */
const PRORES_BYTES = { hq: [0.0106, 2.3, 2.3] as Three, p4444: [0.0171, 3.46, 3.46] as Three };
const PRORES_PROFILE_RATE = [0.22, 0.47, 0.67, 1] as const;
/** Between flat and detailed by the detail's level. */
function blend(t: Three, d: Detail): number {
  const detailed = d.still ? t[1] : t[2];
  return t[0] + Math.min(1, Math.max(0, d.level)) * (detailed - t[0]);
}

export interface VideoFormat {
  codec?: VideoCodec;
  quality?: number;
  transparent?: boolean;
}

/** The encoder's time against its codec's default quality on a flat picture. */
export function encodeTimeFactor(f: VideoFormat, d: Detail): number {
  const codec = f.codec ?? 'h264';
  const quality = f.quality ?? QUALITY.default;
  if (codec === 'prores')
    return blend(proresProfileOf(quality, f.transparent) === 4 ? PRORES_TIME.p4444 : PRORES_TIME.hq, d);
  return blend(TIME[codec][tierOf(quality)], d);
}

/** Estimated bytes of a video's file. */
export function videoBytes(f: VideoFormat, d: Detail, pixels: number, frames: number): number {
  const codec = f.codec ?? 'h264';
  const quality = f.quality ?? QUALITY.default;
  let perPixel: number;
  if (codec === 'prores') {
    const profile = proresProfileOf(quality, f.transparent);
    perPixel = profile === 4 ? blend(PRORES_BYTES.p4444, d) : blend(PRORES_BYTES.hq, d) * PRORES_PROFILE_RATE[profile]!;
  } else perPixel = blend(BYTES[codec][tierOf(quality)], d);
  return Math.ceil(perPixel * pixels * frames);
}

/**
 * A still's or a GIF's bytes, as bounds rather than measures: a PNG of noise is at most about 4 bytes a pixel (RGBA),
 * a GIF frame at most about one (a palette index); flat pictures compress to almost nothing.
 */
export function stillBytes(d: Detail, pixels: number): number {
  return Math.ceil(pixels * (0.02 + 4 * Math.min(1, d.level)));
}
export function gifBytes(d: Detail, pixels: number, frames: number): number {
  return Math.ceil(pixels * frames * (0.01 + (d.still ? 0.05 : 1) * Math.min(1, d.level)));
}

/** A CRF a quality gives, for messages. */
export function scaleOf(f: VideoFormat): string {
  const codec = f.codec ?? 'h264';
  if (codec === 'prores') {
    const p = proresProfileOf(f.quality, f.transparent);
    return `ProRes ${['proxy', 'LT', 'standard', 'HQ', '4444'][p]}`;
  }
  return `${codec} CRF ${crfOf(codec, f.quality)}`;
}
