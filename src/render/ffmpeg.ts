// The one typed module that spawns ffmpeg and ffprobe.
// GIF: see gifPaletteArgs / gifEncodeArgs below (two passes over the same frames; src/render/gif-encoder.ts drives them).
// Video: raw RGBA frames on stdin -> H.264 (libx264), yuv420p, bt709 tags, +faststart, settings fixed so the same
// frames give the same bytes every run (fixed thread count, bit-exact muxing, no metadata).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { i420Bytes, i420Converter } from '../contract/yuv.js';
import type { VideoEncoderName } from '../contract/hardware.js';
import { CODEC_FACTS, FRAME_QUALITY_DEFAULT, crfOf, proresProfileOf, type VideoCodec } from '../contract/outputs.js';

export interface EncoderOptions {
  ffmpegPath?: string;
  width: number;
  height: number;
  fps: number;
  outPath: string;
  /** x264 CRF, default 18 (or the one `quality` gives) */
  crf?: number;
  /** the codec (default h264) and so the finished file's container (src/contract/outputs.ts) */
  codec?: VideoCodec;
  /** 0..100, mapped to the codec's own scale (crfOf, proresProfileOf); default: today's CRF 18 */
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

/**
 * The muxer of a chunk's segment. H.264 keeps MPEG-TS (its joined bytes are unchanged) and H.265 takes it too;
 * VP9, AV1 and ProRes, which MPEG-TS does not carry here (ffmpeg 5.1), go in Matroska. Both keep each frame's
 * duration, so a join lasts exactly the clip (NUT, tried first, loses the last frame's: 6.9 s of a 7 s clip).
 * Matroska counts time in milliseconds: a joined VP9 or AV1 WebM is in milliseconds anyway, a joined ProRes MOV
 * has frames of 33 and 34 ms at 30 fps where a single encode has exact thirtieths.
 */
export function segmentFormat(codec: VideoCodec = 'h264'): 'mpegts' | 'matroska' {
  return codec === 'h264' || codec === 'h265' ? 'mpegts' : 'matroska';
}

/** The muxer arguments of a finished file by codec: MP4 and MOV with the index first (+faststart), or WebM. */
function finishedMuxer(codec: VideoCodec = 'h264'): string[] {
  const container = CODEC_FACTS[codec].container;
  // an HEVC MP4 tagged hvc1 (not ffmpeg's hev1) is what Apple's players open
  const tag = codec === 'h265' ? ['-tag:v', 'hvc1'] : [];
  if (container === 'webm') return ['-f', 'webm'];
  return [...tag, '-movflags', '+faststart', '-f', container];
}

/**
 * RGBA (top row first) -> I420 as a Buffer (src/contract/yuv.ts), for pictures that arrive as RGBA (the tests'
 * oracle for the page's conversion, and the bench's "rgba" path).
 */
export function rgbaToI420(rgba: Uint8Array, width: number, height: number): Buffer {
  const c = i420Converter(rgba, width, height, { out: Buffer.allocUnsafe(i420Bytes(width, height)) });
  c.rows(0, height);
  return c.buf as Buffer;
}

/**
 * The same conversion in slices of rows with a turn of the event loop between them (at most every 10 ms): a 4K
 * frame is hundreds of milliseconds of one core on a loaded machine, and the API must keep answering meanwhile.
 */
export async function rgbaToI420Async(rgba: Uint8Array, width: number, height: number): Promise<Buffer> {
  const c = i420Converter(rgba, width, height, { out: Buffer.allocUnsafe(i420Bytes(width, height)) });
  let last = performance.now();
  for (let y = 0; y < height; y += 64) {
    c.rows(y, Math.min(height, y + 64));
    if (performance.now() - last >= 10) {
      await new Promise((r) => setImmediate(r));
      last = performance.now();
    }
  }
  return c.buf as Buffer;
}

/** No metadata, no version strings, bit-exact muxing: the same packets give the same file bytes every run. */
const BITEXACT = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-bitexact'];

/** The exact ffmpeg arguments of a video encode (exported for tests and docs). Input: I420 (or RGBA) frames on stdin. */
export function encoderArgs(o: EncoderOptions): string[] {
  const codec = o.codec ?? 'h264';
  // transparent frames come as RGBA, made 4:2:0 (or ProRes 4:4:4) with alpha by swscale with the same BT.709
  // limited-range matrix the page's I420 uses; opaque frames are already the page's I420
  const input = o.transparent
    ? ['-pix_fmt', 'rgba']
    : ['-pix_fmt', 'yuv420p', '-color_range', 'tv', '-colorspace', 'bt709'];
  const outFmt = outputPixFmt(codec, o.transparent === true);
  const convert = o.transparent
    ? ['-vf', `scale=out_color_matrix=bt709:out_range=tv:flags=bicubic+accurate_rnd+full_chroma_int,format=${outFmt}`]
    : [];
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-f',
    'rawvideo',
    ...input,
    '-s',
    `${o.width}x${o.height}`,
    '-framerate',
    String(o.fps),
    '-i',
    'pipe:0',
    '-an',
    '-sn',
    '-dn',
    ...convert,
    ...codecArgs(o),
    '-pix_fmt',
    outFmt,
    '-colorspace',
    'bt709',
    '-color_primaries',
    'bt709',
    '-color_trc',
    'bt709',
    '-color_range',
    'tv',
    '-r',
    String(o.fps),
    ...BITEXACT,
    ...(o.container === 'mpegts' ? ['-f', segmentFormat(codec)] : finishedMuxer(codec)),
    o.outPath,
  ];
}

/** The pixel format written: 4:2:0 8-bit (with alpha: yuva420p), ProRes 4:2:2 10-bit (4444 with alpha). */
function outputPixFmt(codec: VideoCodec, transparent: boolean): string {
  if (codec === 'prores') return transparent ? 'yuva444p10le' : 'yuv422p10le';
  return transparent ? 'yuva420p' : 'yuv420p';
}

function codecArgs(o: EncoderOptions): string[] {
  switch (o.codec ?? 'h264') {
    case 'h264':
      return o.encoder === 'nvenc' ? nvencArgs(o) : x264Args(o);
    case 'h265':
      return x265Args(o);
    case 'vp9':
      return vp9Args(o);
    case 'av1':
      return av1Args(o);
    case 'prores':
      return proresArgs(o);
  }
}

/**
 * libx265, frame threads 1 (more would let one frame's decisions depend on another thread's timing) and wavefront
 * rows on a pool of 2 threads, which give the same bytes whatever the pool; veryfast like x264.
 */
function x265Args(o: EncoderOptions): string[] {
  return [
    '-c:v',
    'libx265',
    '-preset',
    'veryfast',
    '-crf',
    String(o.crf ?? crfOf('h265', o.quality)),
    '-x265-params',
    'log-level=error:pools=2:frame-threads=1:lookahead-threads=0',
  ];
}

/** libvpx VP9 at constant quality (-b:v 0), 2 threads over tile columns (tiles give the same bytes whatever the threads). */
function vp9Args(o: EncoderOptions): string[] {
  return [
    '-c:v',
    'libvpx-vp9',
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
  ];
}

/**
 * SVT-AV1 at preset 10 (fast; 1080p at about real time here) with 2 logical processors. SVT-AV1 promises the same
 * bytes for the same input and settings; measured here: two encodes of the same frames are identical.
 */
function av1Args(o: EncoderOptions): string[] {
  return [
    '-c:v',
    'libsvtav1',
    '-preset',
    '10',
    '-crf',
    String(o.crf ?? crfOf('av1', o.quality)),
    '-svtav1-params',
    'lp=2',
  ];
}

/**
 * ffmpeg's prores_aw (the `prores` encoder): intra only, so its frame threads cannot change a byte; Apple's vendor
 * tag so players take it for their own. prores_ks, the other one, spends its bits more carefully but took 12.9 s
 * for 60 frames at 1080p here against 1.8 s.
 */
function proresArgs(o: EncoderOptions): string[] {
  return [
    '-c:v',
    'prores_aw',
    '-profile:v',
    String(proresProfileOf(o.quality, o.transparent === true)),
    '-vendor',
    'apl0',
    '-threads',
    '2',
  ];
}

/** libx264 with a fixed thread layout: the same frames give the same bytes on any machine. */
function x264Args(o: EncoderOptions): string[] {
  return [
    '-c:v',
    'libx264',
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
  ];
}

/**
 * NVENC at constant quality (its -cq scale follows x264's CRF closely), no B-frames so a chunk's segment closes on
 * its last frame like x264's; deterministic on one GPU and driver, not across them.
 */
function nvencArgs(o: EncoderOptions): string[] {
  return [
    '-c:v',
    'h264_nvenc',
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
  ];
}

/**
 * Whether NVENC can encode here: one small frame through h264_nvenc. Debian's ffmpeg lists the encoder everywhere
 * and loads NVIDIA's driver only when it opens, so listing proves nothing. Null when it works, else why not.
 */
export async function nvencProblem(ffmpegPath = 'ffmpeg'): Promise<string | null> {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-f', 'lavfi', '-i', 'color=c=black:s=256x144:r=1'];
  const proc = spawn(ffmpegPath, [...args, '-frames:v', '1', '-c:v', 'h264_nvenc', '-f', 'null', '-'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const [code] = (await Promise.race([
    once(proc, 'close'),
    once(proc, 'error').then(([e]) => [`${(e as Error).message}`]),
  ])) as [number | string | null];
  if (code === 0) return null;
  const lines = err.trim().split('\n').filter(Boolean);
  return typeof code === 'string' ? code : (lines.at(-2) ?? lines.at(-1) ?? `ffmpeg exited with ${code}`);
}

/**
 * The arguments of a join: the concat demuxer reads the list of segments (absolute paths) on stdin and copies their
 * packets, timestamps laid end to end, into the codec's file (MP4 or MOV with +faststart, or WebM; bit-exact): no
 * frame is decoded or encoded again.
 */
export function joinArgs(outPath: string, codec: VideoCodec = 'h264'): string[] {
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'concat',
    '-safe',
    '0',
    '-protocol_whitelist',
    'file,pipe',
    '-i',
    'pipe:0',
    '-c',
    'copy',
    ...BITEXACT,
    ...finishedMuxer(codec),
    outPath,
  ];
}

/** A joined video would not have every frame it promised: a segment is missing, short, or the join lost frames. */
export class IncompleteVideo extends Error {}

/** ffprobe beside the configured ffmpeg (FFMPEG_PATH=/opt/x/ffmpeg means /opt/x/ffprobe). */
export const ffprobeBeside = (ffmpegPath = 'ffmpeg'): string => ffmpegPath.replace(/ffmpeg$/, 'ffprobe');

/** The video packets (frames) a file holds, read from its container without decoding; 0 when it cannot be read. */
export async function countFrames(path: string, ffprobePath = 'ffprobe'): Promise<number> {
  const args = ['-v', 'error', '-select_streams', 'v:0', '-count_packets'];
  const proc = spawn(ffprobePath, [...args, '-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', path], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const [code] = (await once(proc, 'close')) as [number | null];
  const n = Number.parseInt(out.trim(), 10);
  return code === 0 && Number.isFinite(n) ? n : 0;
}

/**
 * Joins a video's segments (in order) into its file (MP4, WebM or MOV by codec) at outPath, written as outPath.tmp
 * then renamed. ffmpeg's concat
 * exits 0 when a segment after the first cannot be opened, so a join is checked: with `segmentFrames` (each
 * segment's frame count, in order), every segment must be there with all its frames, and so must the result;
 * otherwise it throws IncompleteVideo and leaves no output.
 */
export async function joinSegments(
  segments: readonly string[],
  outPath: string,
  ffmpegPath = 'ffmpeg',
  segmentFrames?: readonly number[],
  codec: VideoCodec = 'h264',
): Promise<void> {
  const ffprobe = ffprobeBeside(ffmpegPath);
  if (segmentFrames) {
    if (segmentFrames.length !== segments.length)
      throw new IncompleteVideo(`${segments.length} segments for ${segmentFrames.length} chunks`);
    for (const [i, p] of segments.entries()) {
      const n = await countFrames(p, ffprobe);
      if (n !== segmentFrames[i])
        throw new IncompleteVideo(
          n === 0
            ? `chunk ${i + 1} of ${segments.length} is missing`
            : `chunk ${i + 1} of ${segments.length} has ${n} of its ${segmentFrames[i]} frames`,
        );
    }
  }
  const tmp = `${outPath}.tmp`;
  const proc = spawn(ffmpegPath, joinArgs(tmp, codec), { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr.setEncoding('utf8').on('data', (d: string) => {
    if (err.length < 8192) err += d;
  });
  proc.stdin.on('error', () => {});
  // the concat list format quotes paths with single quotes; a quote inside is written '\''
  // (file: so that a list read from a pipe does not resolve them against pipe:)
  proc.stdin.end(segments.map((p) => `file 'file:${resolve(p).replace(/'/g, "'\\''")}'\n`).join(''));
  const [code] = (await once(proc, 'close')) as [number | null];
  if (code !== 0) {
    await rm(tmp, { force: true });
    throw new Error(`ffmpeg join exited with ${code}: ${err.trim().slice(0, 500)}`);
  }
  if (segmentFrames) {
    const want = segmentFrames.reduce((a, b) => a + b, 0);
    const got = await countFrames(tmp, ffprobe);
    if (got !== want) {
      await rm(tmp, { force: true });
      throw new IncompleteVideo(`the joined video has ${got} of its ${want} frames`);
    }
  }
  await rename(tmp, outPath);
}

/**
 * One ffmpeg process fed raw frames of a fixed size on stdin, with back-pressure, that writes its output file
 * itself. The video encoder and the two GIF passes are all this with different arguments.
 */
export class RawFramePipe {
  private readonly proc: ChildProcess;
  private stderr = '';
  private readonly exited: Promise<number | null>;
  private failed: Error | null = null;
  /** exit code or signal once the process has ended */
  private ended: number | string | null = null;

  constructor(
    ffmpegPath: string | undefined,
    args: string[],
    readonly frameBytes: number,
  ) {
    this.proc = spawn(ffmpegPath ?? 'ffmpeg', args, { stdio: ['pipe', 'ignore', 'pipe'] });
    this.proc.stderr!.setEncoding('utf8');
    this.proc.stderr!.on('data', (d: string) => {
      if (this.stderr.length < 8192) this.stderr += d;
    });
    this.proc.stdin!.on('error', (e) => {
      this.failed ??= e;
    });
    // Node destroys stdin when the child exits, so writes after a crash would vanish without an error: remember it
    this.proc.on('exit', (code, signal) => {
      this.ended = signal ?? code;
    });
    this.exited = new Promise((resolve) => {
      this.proc.on('error', (e) => {
        this.failed ??= e;
        resolve(null);
      });
      this.proc.on('close', (code) => resolve(code));
    });
  }

  /** Writes one frame; resolves when ffmpeg can take more (back-pressure). */
  async write(frame: Uint8Array): Promise<void> {
    if (this.failed) throw new Error(`ffmpeg failed: ${this.failed.message} ${this.stderr}`.trim());
    if (this.ended !== null || this.proc.stdin!.destroyed)
      throw new Error(`ffmpeg exited early (${this.ended ?? 'stdin closed'}): ${this.stderr.trim()}`.trim());
    if (frame.length !== this.frameBytes)
      throw new Error(`frame has ${frame.length} bytes, expected ${this.frameBytes}`);
    const stdin = this.proc.stdin!;
    // keep up to three frames buffered so the page can draw the next frame while ffmpeg reads this one
    if (!stdin.write(frame) && stdin.writableLength > 3 * this.frameBytes) {
      try {
        await Promise.race([
          once(stdin, 'drain'),
          this.exited.then(() => {
            throw new Error(`ffmpeg exited early: ${this.stderr.trim()}`);
          }),
        ]);
      } catch (e) {
        // a killed ffmpeg surfaces as EPIPE on stdin (rejecting the drain wait) or as its exit: both are ffmpeg's
        const m = e instanceof Error ? e.message : String(e);
        throw new Error(/^ffmpeg/.test(m) ? m : `ffmpeg failed: ${m} ${this.stderr}`.trim());
      }
    }
  }

  /** Closes stdin and waits for ffmpeg to finish the file. */
  async finish(): Promise<void> {
    this.proc.stdin!.end();
    const code = await this.exited;
    if (code !== 0) throw new Error(`ffmpeg exited with ${code}: ${this.stderr.trim().slice(0, 500)}`);
  }

  /** Ends the process at once; resolves when it is gone (so its files can be removed). */
  async kill(): Promise<void> {
    this.proc.stdin!.destroy();
    this.proc.kill('SIGKILL');
    await this.exited;
  }
}

/** One ffmpeg process per video job: write I420 frames (rgbaToI420) in order, then finish(). */
export class VideoEncoder extends RawFramePipe {
  constructor(o: EncoderOptions) {
    super(o.ffmpegPath, encoderArgs(o), o.transparent ? o.width * o.height * 4 : (o.width * o.height * 3) / 2);
  }
}

// ---- JPEG and WebP stills -------------------------------------------------------------------------------

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
 * One RGBA picture on stdin to a JPEG (ffmpeg's mjpeg, 4:4:4, JFIF full range, q:v 2..31 from quality 100..0,
 * optimal Huffman tables) or a lossy WebP (libwebp, which takes the RGBA itself and keeps its alpha when a pixel is
 * not opaque). One thread and bit-exact flags: the same picture gives the same bytes.
 */
export function stillArgs(o: StillOptions): string[] {
  const q = o.quality ?? FRAME_QUALITY_DEFAULT;
  const codec =
    o.format === 'jpeg'
      ? [
          '-c:v',
          'mjpeg',
          '-pix_fmt',
          'yuvj444p',
          '-q:v',
          String(Math.round(2 + (29 * (100 - q)) / 100)),
          '-huffman',
          'optimal',
        ]
      : ['-c:v', 'libwebp', '-lossless', '0', '-quality', String(q), '-compression_level', '4', '-preset', 'default'];
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-threads',
    '1',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgba',
    '-s',
    `${o.width}x${o.height}`,
    '-i',
    'pipe:0',
    '-an',
    ...codec,
    ...BITEXACT,
    '-frames:v',
    '1',
    '-f',
    o.format === 'jpeg' ? 'mjpeg' : 'webp',
    o.outPath,
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

// ---- GIF ------------------------------------------------------------------------------------------------
// Two passes over the same RGBA frames so that memory stays bounded whatever the clip's length: pass 1 builds one
// palette for the whole clip (palettegen, stats_mode=full: every frame's histogram counts, so a colour that shows
// long weighs more), pass 2 maps every frame to it (paletteuse). A one-pass graph (split + palettegen +
// paletteuse) would hold every frame inside ffmpeg until palettegen has seen the last one. Measured on the same
// homepage.cm frames, 480x270 at 15 fps (2 cores, ffmpeg 5.1): 2 s clip, one pass 0.59 s / 117 MB peak RSS vs two
// passes 0.26 + 0.45 s / 69 and 83 MB; 60 s clip, one pass 8.8 s / 1009 MB vs two passes 2.1 + 2.4 s / 92 and
// 120 MB. Same bytes either way; two passes stay bounded (and were faster too).

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
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-threads',
    '1',
    '-filter_threads',
    '1',
    '-filter_complex_threads',
    '1',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgba',
    '-s',
    `${o.width}x${o.height}`,
    '-framerate',
    String(o.fps),
    '-i',
    'pipe:0',
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
    '-vf',
    `palettegen=max_colors=${o.colors ?? 256}:reserve_transparent=0:stats_mode=full`,
    ...BITEXACT,
    '-frames:v',
    '1',
    '-update',
    '1',
    '-f',
    'image2',
    '-c:v',
    'png',
    palettePath,
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
    '-i',
    palettePath,
    '-an',
    '-lavfi',
    '[0:v][1:v]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle',
    ...BITEXACT,
    '-loop',
    gifLoopArg(o.loop),
    '-f',
    'gif',
    outPath,
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

export interface ProbeResult {
  codec: string;
  pixFmt: string;
  width: number;
  height: number;
  frames: number;
  duration: number;
  colorSpace?: string;
}

/** ffprobe of the first video stream: codec, pixel format, size, exact frame count and duration. */
export async function probe(path: string, ffprobePath = 'ffprobe'): Promise<ProbeResult> {
  const args = [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-count_frames',
    '-show_entries',
    'stream=codec_name,pix_fmt,width,height,nb_read_frames,color_space:format=duration',
    '-of',
    'json',
    path,
  ];
  const proc = spawn(ffprobePath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  proc.stderr.setEncoding('utf8').on('data', (d) => (err += d));
  const [code] = (await once(proc, 'close')) as [number];
  if (code !== 0) throw new Error(`ffprobe exited with ${code}: ${err.trim()}`);
  const j = JSON.parse(out) as { streams: Record<string, string>[]; format: { duration: string } };
  const s = j.streams[0];
  return {
    codec: s.codec_name,
    pixFmt: s.pix_fmt,
    width: Number(s.width),
    height: Number(s.height),
    frames: Number(s.nb_read_frames),
    duration: Number(j.format.duration),
    colorSpace: s.color_space,
  };
}

/** True when the binary runs (`-version`). */
export async function available(bin: string): Promise<boolean> {
  try {
    const p = spawn(bin, ['-version'], { stdio: 'ignore' });
    const [code] = (await once(p, 'close')) as [number];
    return code === 0;
  } catch {
    return false;
  }
}
