// An endlessly looping GIF with one palette per clip, in bounded memory whatever the clip's length.
// Pass 1 streams every frame into ffmpeg's palettegen while each distinct picture is appended once to a frame file
// next to the output (with its repeat count kept here); pass 2 reads the pictures back and streams the frames again
// into paletteuse. Node holds a picture or two at a time (the one written, the one the page draws), and ffmpeg
// none beyond a few frames of pipe buffer.
// The pictures are deflated (level 1, on libuv's thread pool) on their way to disk: raw, a 60 s 1920x1920 clip at
// 30 fps could need 26 GB there; drawn scenes (flat fills, a few gradients) shrink many times over.
// The frame file, the palette and the partial GIF are removed on success, failure and abort alike.
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { GifEncodePass, GifPalettePass, type GifOptions } from './ffmpeg/gif.js';
import { PARTIAL_SUFFIXES } from './renderer-port.js';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/** Where one distinct picture sits in the frame file, and for how many frames it shows. */
interface StoredPicture {
  offset: number;
  bytes: number;
  count: number;
}

export interface GifWriterOptions extends GifOptions {
  outPath: string;
}

/** Share of the progress bar given to pass 1 (drawing the frames is most of the work; pass 2 only re-encodes). */
export const GIF_PASS1_SHARE = 0.8;

export class GifWriter {
  private readonly framesPath: string;
  private readonly palettePath: string;
  private readonly tmpPath: string;
  private readonly frameBytes: number;
  private readonly pictures: StoredPicture[] = [];
  private stored = 0;
  private raw: FileHandle | null = null;
  private pass1: GifPalettePass | null = null;
  private pass2: GifEncodePass | null = null;

  constructor(private readonly options: GifWriterOptions) {
    // named by the renderer contract, so the output store can find and remove them after a crash
    const [tmp, frames, palette] = PARTIAL_SUFFIXES;
    this.framesPath = `${options.outPath}${frames}`;
    this.palettePath = `${options.outPath}${palette}`;
    this.tmpPath = `${options.outPath}${tmp}`;
    this.frameBytes = options.width * options.height * 4;
  }

  /** The temporary files this writer may create (for tests and cleanup). */
  get temporaryPaths(): string[] {
    return [this.framesPath, this.palettePath, this.tmpPath];
  }

  /** Pass 1: one distinct picture (RGBA) shown for `count` consecutive frames. */
  async add(rgba: Uint8Array, count: number): Promise<void> {
    if (rgba.length !== this.frameBytes) throw new Error(`frame has ${rgba.length} bytes, expected ${this.frameBytes}`);
    this.raw ??= await open(this.framesPath, 'w');
    this.pass1 ??= new GifPalettePass(this.options, this.palettePath);
    // compress while ffmpeg reads the frames: the two overlap
    const packed = deflate(rgba, { level: 1 });
    // the palette's histogram weighs each frame, so a picture shown longer counts more
    for (let k = 0; k < count; k++) await this.pass1.write(rgba);
    const z = await packed;
    await this.raw.write(z, 0, z.length, this.stored);
    this.pictures.push({ offset: this.stored, bytes: z.length, count });
    this.stored += z.length;
  }

  /**
   * Ends pass 1, runs pass 2 and moves the GIF into place. `onFrame(n)` is called after each of pass 2's frames;
   * `aborted()` is asked between frames.
   */
  async finish(onFrame: (done: number) => void, aborted: () => boolean): Promise<void> {
    if (!this.pass1 || !this.raw) throw new Error('a GIF needs at least one frame');
    await this.raw.close();
    this.raw = null;
    await this.pass1.finish();
    this.pass1 = null;
    const pass2 = (this.pass2 = new GifEncodePass(this.options, this.palettePath, this.tmpPath));
    const frames = await open(this.framesPath, 'r');
    try {
      let done = 0;
      for (const [p, pic] of this.pictures.entries()) {
        const z = Buffer.allocUnsafe(pic.bytes);
        const { bytesRead } = await frames.read(z, 0, pic.bytes, pic.offset);
        if (bytesRead !== pic.bytes) throw new Error(`GIF frame store is short at picture ${p}`);
        // a fresh buffer per picture (inflate gives one): the pipe keeps a reference until the kernel takes it
        const buf = await inflate(z);
        if (buf.length !== this.frameBytes) throw new Error(`GIF frame store: picture ${p} has ${buf.length} bytes`);
        for (let k = 0; k < pic.count; k++) {
          if (aborted()) throw new Error('aborted');
          await pass2.write(buf);
          onFrame(++done);
        }
      }
    } finally {
      await frames.close();
    }
    await pass2.finish();
    this.pass2 = null;
    await rename(this.tmpPath, this.options.outPath);
    await this.removeTemporaries();
  }

  /** Stops any running pass and removes every temporary file. Safe to call more than once. */
  async abort(): Promise<void> {
    await Promise.all([this.pass1?.kill(), this.pass2?.kill()]);
    this.pass1 = this.pass2 = null;
    await this.raw?.close().catch(() => {});
    this.raw = null;
    await this.removeTemporaries();
  }

  private async removeTemporaries(): Promise<void> {
    await Promise.all(this.temporaryPaths.map((p) => rm(p, { force: true })));
  }
}
