// The one table of video encoders: per codec, ffmpeg's encoder and its settings (quality mapped to the encoder's
// own scale, threads laid out so the same frames give the same bytes), the pixel format written, the colour tags,
// and the muxers of a chunk's segment and of a finished file. encoderArgs (video.ts) is this table read in order.
import type { VideoEncoderName } from '../../contract/hardware.js';
import { CODEC_FACTS, crfOf, proresProfileOf, type VideoCodec } from '../../contract/outputs.js';

/** What an encoder's settings depend on (a subset of EncoderOptions). */
export interface EncoderSettingsInput {
  /** the CRF (or NVENC's -cq) itself, over `quality` */
  crf?: number;
  /** 0..100, mapped to the codec's own scale (crfOf, proresProfileOf) */
  quality?: number;
  /** x264's preset (default "veryfast"); the other encoders keep their own */
  preset?: string;
  transparent?: boolean;
}

export interface EncoderEntry {
  /** ffmpeg's encoder (-c:v) */
  encoder: string;
  /** its arguments after -c:v: quality and thread layout */
  settings(o: EncoderSettingsInput): string[];
}

export interface CodecEntry extends EncoderEntry {
  /** the same codec on NVIDIA's encoder (RENDER_ENCODER=nvenc); a codec without one ignores the setting */
  nvenc?: EncoderEntry;
  /** the pixel format written: opaque, and with alpha kept */
  pixFmt: { opaque: string; alpha: string };
  /** the colour tags of the stream: every codec here writes BT.709 limited range, as the page's I420 is */
  colour: readonly string[];
  /**
   * The muxer of a chunk's segment. MPEG-TS for H.264 (its joined bytes are unchanged) and H.265; VP9, AV1 and
   * ProRes, which MPEG-TS does not carry here (ffmpeg 5.1), go in Matroska. Both keep each frame's duration, so a
   * join lasts exactly the clip (NUT, tried first, loses the last frame's: 6.9 s of a 7 s clip). Matroska counts
   * time in milliseconds: a joined VP9 or AV1 WebM is in milliseconds anyway, a joined ProRes MOV has frames of 33
   * and 34 ms at 30 fps where a single encode has exact thirtieths.
   */
  segment: 'mpegts' | 'matroska';
  /** the muxer arguments of a finished file (its container: CODEC_FACTS) */
  finished: readonly string[];
}

const BT709_TV = ['-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv'];

/** MP4 or MOV with the index first (+faststart), so a player can start before the whole file has arrived. */
const indexFirst = (codec: VideoCodec): string[] => ['-movflags', '+faststart', '-f', CODEC_FACTS[codec].container];

const FOUR_TWENTY = { opaque: 'yuv420p', alpha: 'yuva420p' };

export const CODECS: Record<VideoCodec, CodecEntry> = {
  /** libx264 with a fixed thread layout: the same frames give the same bytes on any machine. */
  h264: {
    encoder: 'libx264',
    settings: (o) => [
      '-preset',
      o.preset ?? 'veryfast',
      '-crf',
      String(o.crf ?? crfOf('h264', o.quality)),
      '-tune',
      'animation',
      '-threads',
      '2',
      '-x264-params',
      'threads=2:lookahead-threads=1:sliced-threads=0',
    ],
    /**
     * NVENC at constant quality (its -cq scale follows x264's CRF closely), no B-frames so a chunk's segment closes
     * on its last frame like x264's; deterministic on one GPU and driver, not across them.
     */
    nvenc: {
      encoder: 'h264_nvenc',
      settings: (o) => [
        '-preset',
        'p5',
        '-tune',
        'hq',
        '-rc',
        'vbr',
        '-cq',
        String(o.crf ?? crfOf('h264', o.quality)),
        '-b:v',
        '0',
        '-bf',
        '0',
      ],
    },
    pixFmt: FOUR_TWENTY,
    colour: BT709_TV,
    segment: 'mpegts',
    finished: indexFirst('h264'),
  },
  /**
   * libx265, frame threads 1 (more would let one frame's decisions depend on another thread's timing) and wavefront
   * rows on a pool of 2 threads, which give the same bytes whatever the pool; veryfast like x264.
   */
  h265: {
    encoder: 'libx265',
    settings: (o) => [
      '-preset',
      'veryfast',
      '-crf',
      String(o.crf ?? crfOf('h265', o.quality)),
      '-x265-params',
      'log-level=error:pools=2:frame-threads=1:lookahead-threads=0',
    ],
    pixFmt: FOUR_TWENTY,
    colour: BT709_TV,
    segment: 'mpegts',
    // an HEVC MP4 tagged hvc1 (not ffmpeg's hev1) is what Apple's players open
    finished: ['-tag:v', 'hvc1', ...indexFirst('h265')],
  },
  /** libvpx VP9 at constant quality (-b:v 0), 2 threads over tile columns (tiles give the same bytes whatever the threads). */
  vp9: {
    encoder: 'libvpx-vp9',
    settings: (o) => [
      '-crf',
      String(o.crf ?? crfOf('vp9', o.quality)),
      '-b:v',
      '0',
      '-deadline',
      'good',
      '-cpu-used',
      '5',
      '-row-mt',
      '0',
      '-tile-columns',
      '1',
      '-threads',
      '2',
    ],
    pixFmt: FOUR_TWENTY,
    colour: BT709_TV,
    segment: 'matroska',
    finished: ['-f', 'webm'],
  },
  /**
   * SVT-AV1 at preset 10 (fast; 1080p at about real time here) with 2 logical processors. SVT-AV1 promises the same
   * bytes for the same input and settings; measured here: two encodes of the same frames are identical.
   */
  av1: {
    encoder: 'libsvtav1',
    settings: (o) => ['-preset', '10', '-crf', String(o.crf ?? crfOf('av1', o.quality)), '-svtav1-params', 'lp=2'],
    pixFmt: FOUR_TWENTY,
    colour: BT709_TV,
    segment: 'matroska',
    finished: ['-f', 'webm'],
  },
  /**
   * ffmpeg's prores_aw (the `prores` encoder): intra only, so its frame threads cannot change a byte; Apple's vendor
   * tag so players take it for their own. prores_ks, the other one, spends its bits more carefully but took 12.9 s
   * for 60 frames at 1080p here against 1.8 s. 4:2:2 10-bit, or 4444 with alpha.
   */
  prores: {
    encoder: 'prores_aw',
    settings: (o) => [
      '-profile:v',
      String(proresProfileOf(o.quality, o.transparent === true)),
      '-vendor',
      'apl0',
      '-threads',
      '2',
    ],
    pixFmt: { opaque: 'yuv422p10le', alpha: 'yuva444p10le' },
    colour: BT709_TV,
    segment: 'matroska',
    finished: indexFirst('prores'),
  },
};

/** The encoder a codec is written with: its NVENC variant when asked for and there is one, else its own. */
export function encoderOf(codec: VideoCodec, encoder?: VideoEncoderName): EncoderEntry {
  const c = CODECS[codec];
  return encoder === 'nvenc' && c.nvenc ? c.nvenc : c;
}
