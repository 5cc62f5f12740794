// The GIF's two ffmpeg passes over the same RGBA frames, so that memory stays bounded whatever the clip's length:
// pass 1 builds one palette for the whole clip (palettegen, stats_mode=full: every frame's histogram counts, so a
// colour that shows long weighs more), pass 2 maps every frame to it (paletteuse). A one-pass graph (split +
// palettegen + paletteuse) would hold every frame inside ffmpeg until palettegen has seen the last one. Measured on
// the same homepage.cm frames, 480x270 at 15 fps (2 cores, ffmpeg 5.1): 2 s clip, one pass 0.59 s / 117 MB peak RSS
// vs two passes 0.26 + 0.45 s / 69 and 83 MB; 60 s clip, one pass 8.8 s / 1009 MB vs two passes 2.1 + 2.4 s / 92 and
// 120 MB. Same bytes either way; two passes stay bounded (and were faster too). src/render/gif-encoder.ts drives them.
import { BITEXACT, QUIET } from './flags.js';
import { RawFramePipe } from './process.js';

export interface GifOptions {
  ffmpegPath?: string;
  width: number;
  height: number;
  fps: number;
  /** 0 = loop for ever (default), n = played n times */
  loop?: number;
  /** the palette's colours, 2..256 (default 256) */
  colors?: number;
}

/**
 * ffmpeg's -loop for a GIF played n times: 0 writes "for ever"; -1 writes no NETSCAPE2.0 extension (played once);
 * m writes m repeats after the first showing.
 */
export function gifLoopArg(loop = 0): string {
  return loop === 0 ? '0' : String(loop - 1 === 0 ? -1 : loop - 1);
}

/** Arguments shared by both passes: raw RGBA on stdin, one thread, bit-exact, so the same frames give the same bytes. */
function gifInputArgs(o: GifOptions): string[] {
  return [
    ...QUIET,
    ...['-nostdin', '-y', '-threads', '1', '-filter_threads', '1', '-filter_complex_threads', '1'],
    ...['-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${o.width}x${o.height}`, '-framerate', String(o.fps)],
    ...['-i', 'pipe:0'],
  ];
}

/**
 * Pass 1: the clip's palette as a 16x16 PNG. The frames are opaque, so no entry is kept for transparency: all 256
 * (or `colors`) go to colours.
 */
export function gifPaletteArgs(o: GifOptions, palettePath: string): string[] {
  return [
    ...gifInputArgs(o),
    '-an',
    ...['-vf', `palettegen=max_colors=${o.colors ?? 256}:reserve_transparent=0:stats_mode=full`],
    ...BITEXACT,
    ...['-frames:v', '1', '-update', '1', '-f', 'image2', '-c:v', 'png', palettePath],
  ];
}

/**
 * Pass 2: every frame mapped to the palette, looping forever by default (gifLoopArg: -loop 0 writes the NETSCAPE2.0
 * extension).
 * Dither: ordered Bayer (scale 4). Error diffusion (the default sierra2_4a) spreads each frame's error
 * differently, so flat areas of an animation shimmer from frame to frame and the GIF compresses worse; an ordered
 * pattern stays put where the picture stays put. diff_mode=rectangle re-dithers only the changed rectangle, which
 * keeps unchanged areas byte-identical between frames.
 */
export function gifEncodeArgs(o: GifOptions, palettePath: string, outPath: string): string[] {
  return [
    ...gifInputArgs(o),
    ...['-i', palettePath],
    '-an',
    ...['-lavfi', '[0:v][1:v]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle'],
    ...BITEXACT,
    ...['-loop', gifLoopArg(o.loop), '-f', 'gif', outPath],
  ];
}

/** Pass 1: feed every frame (RGBA, repeats included), then finish() writes the palette. */
export class GifPalettePass extends RawFramePipe {
  constructor(o: GifOptions, palettePath: string) {
    super(o.ffmpegPath, gifPaletteArgs(o, palettePath), o.width * o.height * 4);
  }
}

/** Pass 2: feed the same frames again, then finish() writes the GIF. */
export class GifEncodePass extends RawFramePipe {
  constructor(o: GifOptions, palettePath: string, outPath: string) {
    super(o.ffmpegPath, gifEncodeArgs(o, palettePath, outPath), o.width * o.height * 4);
  }
}
