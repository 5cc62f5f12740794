// An endlessly looping GIF with one palette per clip, in bounded memory whatever the clip's length.
// Pass 1 streams every frame into ffmpeg's palettegen while each distinct picture is appended once to a raw file
// next to the output (with its repeat count kept here); pass 2 reads the pictures back and streams the frames again
// into paletteuse. Only one picture is in Node's memory at a time, and ffmpeg holds none beyond its pipe buffer.
// The raw file, the palette and the partial GIF are removed on success, failure and abort alike.
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { GifEncodePass, GifPalettePass, type GifOptions } from './ffmpeg.js';

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
  private readonly counts: number[] = [];
  private raw: FileHandle | null = null;
  private pass1: GifPalettePass | null = null;
  private pass2: GifEncodePass | null = null;

  constructor(private readonly o: GifWriterOptions) {
    this.framesPath = `${o.outPath}.frames.rgba`;
    this.palettePath = `${o.outPath}.palette.png`;
    this.tmpPath = `${o.outPath}.tmp`;
    this.frameBytes = o.width * o.height * 4;
  }

  /** The temporary files this writer may create (for tests and cleanup). */
  get temporaryPaths(): string[] {
    return [this.framesPath, this.palettePath, this.tmpPath];
  }

  /** Pass 1: one distinct picture (RGBA) shown for `count` consecutive frames. */
  async add(rgba: Uint8Array, count: number): Promise<void> {
    if (rgba.length !== this.frameBytes) throw new Error(`frame has ${rgba.length} bytes, expected ${this.frameBytes}`);
    this.raw ??= await open(this.framesPath, 'w');
    this.pass1 ??= new GifPalettePass(this.o, this.palettePath);
    await this.raw.write(rgba, 0, rgba.length);
    this.counts.push(count);
    // the palette's histogram weighs each frame, so a picture shown longer counts more
    for (let k = 0; k < count; k++) await this.pass1.write(rgba);
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
    const pass2 = (this.pass2 = new GifEncodePass(this.o, this.palettePath, this.tmpPath));
    const frames = await open(this.framesPath, 'r');
    try {
      let done = 0;
      for (let p = 0; p < this.counts.length; p++) {
        // a fresh buffer per picture: the pipe keeps a reference to written bytes until the kernel takes them
        const buf = Buffer.allocUnsafe(this.frameBytes);
        const { bytesRead } = await frames.read(buf, 0, this.frameBytes, p * this.frameBytes);
        if (bytesRead !== this.frameBytes) throw new Error(`GIF frame store is short at picture ${p}`);
        for (let k = 0; k < this.counts[p]!; k++) {
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
    await rename(this.tmpPath, this.o.outPath);
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
