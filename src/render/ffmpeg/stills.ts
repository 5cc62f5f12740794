// JPEG and WebP stills: one RGBA picture on stdin to one file, one thread and bit-exact flags so the same picture
// gives the same bytes.
import { FRAME_QUALITY_DEFAULT } from '../../contract/outputs.js';
import { BITEXACT, QUIET } from './flags.js';
import { RawFramePipe } from './process.js';

export interface StillOptions {
  ffmpegPath?: string;
  width: number;
  height: number;
  format: 'jpeg' | 'webp';
  /** 0..100 (default FRAME_QUALITY_DEFAULT) */
  quality?: number;
  outPath: string;
}

/**
 * The encoder of a still by format: a JPEG (ffmpeg's mjpeg, 4:4:4, JFIF full range, q:v 2..31 from quality
 * 100..0, optimal Huffman tables) or a lossy WebP (libwebp, which takes the RGBA itself and keeps its alpha when a
 * pixel is not opaque).
 */
function stillCodecArgs(format: StillOptions['format'], q: number): string[] {
  if (format === 'jpeg')
    return [
      '-c:v',
      'mjpeg',
      '-pix_fmt',
      'yuvj444p',
      '-q:v',
      String(Math.round(2 + (29 * (100 - q)) / 100)),
      '-huffman',
      'optimal',
    ];
  return ['-c:v', 'libwebp', '-lossless', '0', '-quality', String(q), '-compression_level', '4', '-preset', 'default'];
}

/** The exact ffmpeg arguments of a still. */
export function stillArgs(o: StillOptions): string[] {
  return [
    ...QUIET,
    ...['-nostdin', '-y', '-threads', '1'],
    ...['-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${o.width}x${o.height}`, '-i', 'pipe:0'],
    '-an',
    ...stillCodecArgs(o.format, o.quality ?? FRAME_QUALITY_DEFAULT),
    ...BITEXACT,
    ...['-frames:v', '1', '-f', o.format === 'jpeg' ? 'mjpeg' : 'webp', o.outPath],
  ];
}

/** Writes one picture as a JPEG or WebP file at outPath (the caller renames it into place). */
export async function encodeStill(rgba: Uint8Array, o: StillOptions): Promise<void> {
  const pipe = new RawFramePipe(o.ffmpegPath, stillArgs(o), o.width * o.height * 4);
  try {
    await pipe.write(rgba);
    await pipe.finish();
  } catch (err) {
    await pipe.kill();
    throw err;
  }
}
