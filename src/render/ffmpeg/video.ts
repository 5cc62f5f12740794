// A video encode: raw frames on stdin (the page's I420, or RGBA when the alpha is kept) to the codec's file or a
// chunk's segment, with the arguments read from the codec table (codecs.ts) and fixed so the same frames give the
// same bytes every run (fixed thread layout, bit-exact muxing, no metadata).
import type { VideoEncoderName } from '../../contract/hardware.js';
import type { VideoCodec } from '../../contract/outputs.js';
import { CODECS, encoderOf } from './codecs.js';
import { BITEXACT, QUIET } from './flags.js';
import { RawFramePipe } from './process.js';

export interface EncoderOptions {
  ffmpegPath?: string;
  width: number;
  height: number;
  fps: number;
  outPath: string;
  /** the CRF (NVENC: -cq) itself; default: the one `quality` gives */
  crf?: number;
  /** the codec (default h264) and so the finished file's container (src/contract/outputs.ts) */
  codec?: VideoCodec;
  /** 0..100, mapped to the codec's own scale (crfOf, proresProfileOf); default QUALITY.default */
  quality?: number;
  /** frames arrive as RGBA (not I420) and the alpha is kept: vp9 (yuva420p) or prores (4444) */
  transparent?: boolean;
  /** x264 preset, default "veryfast" */
  preset?: string;
  /** libx264 (default: the bit-exact reference) or NVIDIA's h264_nvenc (RENDER_ENCODER=nvenc) */
  encoder?: VideoEncoderName;
  /**
   * 'mp4' (default): the finished file (for another codec, its own container: WebM or MOV). 'mpegts': one chunk of a
   * longer video, a closed segment (it starts with a key frame, as every encode does) that joinSegments() puts
   * together with the others without re-encoding (MPEG-TS or Matroska: segmentFormat()).
   */
  container?: 'mp4' | 'mpegts';
}

/** The muxer of a chunk's segment by codec (the table's `segment`). */
export function segmentFormat(codec: VideoCodec = 'h264'): 'mpegts' | 'matroska' {
  return CODECS[codec].segment;
}

/** The exact ffmpeg arguments of a video encode (exported for tests and docs). Input: I420 (or RGBA) frames on stdin. */
export function encoderArgs(o: EncoderOptions): string[] {
  const codec = CODECS[o.codec ?? 'h264'];
  const encoder = encoderOf(o.codec ?? 'h264', o.encoder);
  const outFmt = o.transparent ? codec.pixFmt.alpha : codec.pixFmt.opaque;
  // transparent frames come as RGBA, made 4:2:0 (or ProRes 4:4:4) with alpha by swscale with the same BT.709
  // limited-range matrix the page's I420 uses; opaque frames are already the page's I420
  const input = o.transparent
    ? ['-pix_fmt', 'rgba']
    : ['-pix_fmt', 'yuv420p', '-color_range', 'tv', '-colorspace', 'bt709'];
  const convert = o.transparent
    ? ['-vf', `scale=out_color_matrix=bt709:out_range=tv:flags=bicubic+accurate_rnd+full_chroma_int,format=${outFmt}`]
    : [];
  const size = ['-s', `${o.width}x${o.height}`, '-framerate', String(o.fps)];
  return [
    ...QUIET,
    '-nostdin',
    '-y',
    ...['-f', 'rawvideo', ...input, ...size, '-i', 'pipe:0'],
    ...['-an', '-sn', '-dn'],
    ...convert,
    ...['-c:v', encoder.encoder, ...encoder.settings(o)],
    ...['-pix_fmt', outFmt, ...codec.colour],
    ...['-r', String(o.fps)],
    ...BITEXACT,
    ...(o.container === 'mpegts' ? ['-f', codec.segment] : codec.finished),
    o.outPath,
  ];
}

/** One ffmpeg process per video encode: write I420 frames (or RGBA when transparent) in order, then finish(). */
export class VideoEncoder extends RawFramePipe {
  constructor(o: EncoderOptions) {
    super(o.ffmpegPath, encoderArgs(o), o.transparent ? o.width * o.height * 4 : (o.width * o.height * 3) / 2);
  }
}
