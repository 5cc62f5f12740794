// The output formats a client may ask for (issue 27): video codecs and their containers, still formats, and the one
// quality number (0..100) mapped onto each encoder's own scale. Imported by the server (validation, the output's
// name and MIME type) and the renderer (the encoder's arguments) alike, so both read the same table.
import { KIND_EXT, type OutputExt } from './mime.js';

export const VIDEO_CODECS = ['h264', 'h265', 'vp9', 'av1', 'prores'] as const;
export type VideoCodec = (typeof VIDEO_CODECS)[number];

export const FRAME_FORMATS = ['png', 'jpeg', 'webp'] as const;
export type FrameFormat = (typeof FRAME_FORMATS)[number];

/** What each codec is written in, and whether it keeps an alpha channel. */
export const CODEC_FACTS = {
  h264: { container: 'mp4', alpha: false },
  h265: { container: 'mp4', alpha: false },
  vp9: { container: 'webm', alpha: true },
  av1: { container: 'webm', alpha: false },
  prores: { container: 'mov', alpha: true },
} as const satisfies Record<VideoCodec, { container: OutputExt; alpha: boolean }>;

export const FRAME_FORMAT_EXT = { png: 'png', jpeg: 'jpg', webp: 'webp' } as const satisfies Record<
  FrameFormat,
  OutputExt
>;
/** The still formats that keep alpha (`transparent: true`). */
export const FRAME_ALPHA: Record<FrameFormat, boolean> = { png: true, jpeg: false, webp: true };

/**
 * quality: one number for every encoder. The default, 65, is today's x264 CRF 18 exactly: CRF-like scales map
 * linearly from their worst value at 0 to 0 (their best) at 100, rounded. ProRes has profiles, not a CRF: proxy
 * below 20, LT below 40, standard below 60, HQ from 60 (transparent: always 4444). JPEG and WebP take the number as
 * their own 0..100 quality (ffmpeg's mjpeg q:v 31..2, libwebp -quality 0..100), 90 by default.
 */
export const QUALITY = { min: 0, max: 100, default: 65 } as const;
/** A JPEG or WebP still without `quality`: 90 (mjpeg q:v 5, libwebp quality 90), sharper than the video default. */
export const FRAME_QUALITY_DEFAULT = 90;

/** The worst value of each CRF scale: libx264/libx265 0..51, libvpx-vp9 and SVT-AV1 0..63. */
const CRF_WORST = { h264: 51, h265: 51, vp9: 63, av1: 63 } as const;

/** The CRF a quality gives (h264, h265, vp9, av1). */
export function crfOf(codec: Exclude<VideoCodec, 'prores'>, quality: number = QUALITY.default): number {
  const worst = CRF_WORST[codec];
  return Math.round((worst * (QUALITY.max - quality)) / QUALITY.max);
}

/** The ProRes profile (prores_aw -profile:v index) a quality gives; transparent takes 4444. */
export function proresProfileOf(quality: number = QUALITY.default, transparent = false): number {
  if (transparent) return 4;
  return quality < 20 ? 0 : quality < 40 ? 1 : quality < 60 ? 2 : 3;
}

/** The extension of a video's file by its codec (h264 when absent: today's MP4). */
export function videoExt(codec: VideoCodec = 'h264'): OutputExt {
  return CODEC_FACTS[codec].container;
}

/** A GIF's palette: 2..256 colours (256 by default); loop: 0 = for ever (the default), n = played n times. */
export const GIF_COLORS = { min: 2, max: 256, default: 256 } as const;
export const GIF_LOOP = { min: 0, max: 65535, default: 0 } as const;

/** The params that choose an output's format (a subset of a job's params). */
export interface FormatParams {
  codec?: VideoCodec;
  format?: FrameFormat;
}

/** The extension of a job's output: the kind's own, or the one its codec (video) or format (frame) asks for. */
export function outputExtOf(kind: keyof typeof KIND_EXT, params: FormatParams | undefined): OutputExt {
  if (kind === 'video' && params?.codec) return videoExt(params.codec);
  if (kind === 'frame' && params?.format) return FRAME_FORMAT_EXT[params.format];
  return KIND_EXT[kind];
}
