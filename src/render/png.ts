// RGBA (top row first) -> PNG. Our own small encoder over node:zlib: deterministic (fixed filter, fixed zlib
// settings, the stream's pieces cut where the pixels say) and fast (one "Up" filter per row instead of trying every
// filter, taken four bytes at a time; rows the filter makes all zeros deflated without a search). Writes colour type
// 2 (RGB) when every pixel is opaque, else 6 (RGBA).
import { deflateRaw, deflateRawSync, constants, crc32 as zlibCrc32, type ZlibOptions } from 'node:zlib';
import { promisify } from 'node:util';

// node:zlib's CRC-32 is the PNG one (IEEE 802.3).
export const crc32 = (buf: Uint8Array, crc = 0): number => zlibCrc32(buf, crc);

/** One PNG chunk: its length, type, data and CRC-32. */
export function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The picture as 32-bit words (one a pixel) when its bytes allow a view (aligned, little-endian), else null. */
function words(rgba: Uint8Array): Uint32Array | null {
  return LITTLE_ENDIAN && rgba.byteOffset % 4 === 0
    ? new Uint32Array(rgba.buffer, rgba.byteOffset, rgba.length >>> 2)
    : null;
}

function isOpaque(rgba: Uint8Array, w32: Uint32Array | null): boolean {
  if (w32) {
    for (let i = 0; i < w32.length; i++) if (w32[i]! < 0xff000000) return false;
    return true;
  }
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

/**
 * How the picture's bytes are laid out: `bottomUp`, its rows bottom first (a WebGL read back as it is); `opaque`, the
 * picture is opaque whatever its alpha bytes say (an opaque job's read back: alpha is dropped, colour type 2).
 */
export interface PngInput {
  bottomUp?: boolean;
  opaque?: boolean;
}

/** Encodes RGBA pixels (top row first unless `input.bottomUp`) as a PNG. */
export function encodePng(rgba: Uint8Array, width: number, height: number, level = 6, input: PngInput = {}): Buffer {
  const f = new Filtered(rgba, width, height, input);
  f.rows(0, height);
  const cuts = new PieceCuts(f);
  const pieces = [...cuts.through(height), ...cuts.end()];
  return f.png(
    zlibStream(
      pieces.map((p) => deflateRawSync(f.raw.subarray(p.from, p.to), zlibOptions(f, p, level))),
      f,
      level,
    ),
  );
}

const ROWS_PER_SLICE = 128;
/** Give the event loop a turn at least this often while packing a large picture. */
const YIELD_EVERY_MS = 10;
const deflateRawAsync = promisify(deflateRaw);

/**
 * The same bytes as encodePng, without holding the event loop: rows are packed and filtered in slices with a turn
 * of the event loop between them, and each piece of the stream deflates on libuv's thread pool as soon as its rows
 * are filtered, beside the filtering of the next (a 4K frame takes a second of one core on a loaded machine).
 */
export async function encodePngAsync(
  rgba: Uint8Array,
  width: number,
  height: number,
  level = 6,
  input: PngInput = {},
): Promise<Buffer> {
  const f = new Filtered(rgba, width, height, input);
  const cuts = new PieceCuts(f);
  const parts: Promise<Buffer>[] = [];
  const deflate = (p: Piece) => parts.push(deflateRawAsync(f.raw.subarray(p.from, p.to), zlibOptions(f, p, level)));
  let last = performance.now();
  for (let y = 0; y < height; y += ROWS_PER_SLICE) {
    const y1 = Math.min(height, y + ROWS_PER_SLICE);
    f.rows(y, y1);
    cuts.through(y1).forEach(deflate);
    if (performance.now() - last < YIELD_EVERY_MS) continue;
    await new Promise((r) => setImmediate(r));
    last = performance.now();
  }
  cuts.end().forEach(deflate);
  return f.png(zlibStream(await Promise.all(parts), f, level));
}

/**
 * The zlib stream is deflated in pieces, each its own run of whole rows, joined as pigz joins them: every piece but
 * the last ends on a byte boundary (a sync flush), and each starts with the 32 KiB before it as its dictionary, so a
 * match may reach back across the cut as in one stream. A run of rows that the Up filter made all zeros (a picture's
 * unchanging rows: most of a flat 2D frame) of at least ZERO_RUN_BYTES is a piece of its own, deflated as runs
 * (Z_RLE, no search): zlib's default search inserts every byte of such a run into its hash chains, 25 ms of a flat
 * 1080p frame's 27, to find the very matches a run length finds. Other rows go in pieces of at most PIECE_BYTES,
 * deflated at the encoder's level and side by side. A picture with neither (under ZERO_RUN_BYTES of zero rows in a
 * run, under PIECE_BYTES in all: a thumbnail) is one piece, the bytes zlib's one-shot deflate writes. Where the cuts
 * fall depends on the pixels only, so the same picture gives the same bytes, on any machine with this zlib.
 */
const ZERO_RUN_BYTES = 64 * 1024;
const PIECE_BYTES = 1 << 20;
const WINDOW = 32 * 1024;

interface Piece {
  /** byte range of the filtered scanlines */
  from: number;
  to: number;
  runs: boolean;
  last: boolean;
}

/**
 * Where the pieces fall, told as the rows are filtered (top down), each piece as soon as no later row can move its
 * end: a span of rows is either runs (a run of zero rows of at least ZERO_RUN_BYTES, one piece) or content (every
 * other row up to the next such run, in pieces of `step` rows from the span's start). A content piece waits while a
 * run of zero rows that began inside it may still grow long enough to end the span there.
 */
class PieceCuts {
  private readonly line: number;
  private readonly step: number;
  /** the current span's first row, whether it is runs, and the end of its pieces told so far (content) */
  private spanStart = 0;
  private spanRuns = false;
  private told = 0;
  /** the first of the zero rows that end the content seen so far (-1: the last row seen was not zeros) */
  private zeroFrom = -1;
  private next = 0;

  constructor(private readonly f: Filtered) {
    this.line = f.stride + 1;
    this.step = Math.max(1, Math.floor(PIECE_BYTES / this.line));
  }

  /** The pieces that rows up to `y1` (exclusive, filtered) settle. */
  through(y1: number): Piece[] {
    const out: Piece[] = [];
    for (; this.next < y1; this.next++) {
      const y = this.next;
      const zero = this.f.zeroRow[y] === 1;
      if (this.spanRuns) {
        if (zero) continue;
        out.push(this.piece(this.spanStart, y, true));
        this.spanStart = this.told = y;
        this.spanRuns = false;
        this.zeroFrom = -1;
      }
      if (zero) {
        if (this.zeroFrom < 0) this.zeroFrom = y;
        if ((y + 1 - this.zeroFrom) * this.line >= ZERO_RUN_BYTES) {
          this.content(this.zeroFrom, out);
          this.spanStart = this.zeroFrom;
          this.spanRuns = true;
          continue;
        }
      } else this.zeroFrom = -1;
      // whole content pieces that no run of zero rows can cut short any more
      while (this.told + this.step <= y + 1 && (this.zeroFrom < 0 || this.zeroFrom >= this.told + this.step)) {
        out.push(this.piece(this.told, this.told + this.step, false));
        this.told += this.step;
      }
    }
    return out;
  }

  /** The pieces left once every row is filtered. */
  end(): Piece[] {
    const out: Piece[] = [];
    if (this.spanRuns) out.push(this.piece(this.spanStart, this.f.height, true));
    else this.content(this.f.height, out);
    return out;
  }

  /** The current content span's pieces not told yet, up to row `y1`. */
  private content(y1: number, out: Piece[]): void {
    for (; this.told < y1; this.told = Math.min(y1, this.told + this.step))
      out.push(this.piece(this.told, Math.min(y1, this.told + this.step), false));
  }

  private piece(y0: number, y1: number, runs: boolean): Piece {
    return { from: y0 * this.line, to: y1 * this.line, runs, last: y1 === this.f.height };
  }
}

function zlibOptions(f: Filtered, p: Piece, level: number): ZlibOptions {
  return {
    level,
    memLevel: 9,
    strategy: p.runs ? constants.Z_RLE : constants.Z_DEFAULT_STRATEGY,
    finishFlush: p.last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
    ...(p.from > 0 ? { dictionary: f.raw.subarray(Math.max(0, p.from - WINDOW), p.from) } : {}),
  };
}

/** The raw deflate pieces as one zlib stream (RFC 1950): its header as zlib writes it for `level`, the Adler-32. */
function zlibStream(parts: Buffer[], f: Filtered, level: number): Buffer {
  const flevel = level < 2 ? 0 : level < 6 ? 1 : level === 6 ? 2 : 3;
  let header = (0x78 << 8) | (flevel << 6);
  header += 31 - (header % 31);
  const head = Buffer.from([header >>> 8, header & 0xff]);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(f.adler() >>> 0);
  return Buffer.concat([head, ...parts, tail]);
}

const HI = 0x80808080;
const LO = 0x7f7f7f7f;

const ADLER_MOD = 65521;

/**
 * The PNG's filtered scanlines, filled in row ranges from the top, and the file around the compressed data. The
 * Up filter is byte-wise, so it is taken on the RGBA words (four bytes at a time, without borrows between them)
 * before alpha is dropped: the same bytes as packing first and filtering after, in one pass. A row equal to the one
 * above (most of a flat 2D frame) is a row of zeros, found by memcmp. Each row is marked when its filtered bytes are
 * all zeros (PieceCuts), and the scanlines' Adler-32 (the zlib stream's check) is kept as the rows are filled: a row
 * of zeros adds to it in one step. A class rather than closures made per picture: closures new for every picture are
 * new call targets to V8, which stops inlining the row work into `rows` (measured alone, the homepage frame's encode
 * went 31-35 -> 23-24 ms; in the service, within its noise).
 */
class Filtered {
  readonly raw: Buffer;
  readonly stride: number;
  readonly opaque: boolean;
  /** 1 where a row's filtered bytes (after its filter byte) are all zeros */
  readonly zeroRow: Uint8Array;
  private readonly rgba: Uint8Array;
  private readonly w32: Uint32Array | null;
  private readonly src: Buffer;
  private readonly bottomUp: boolean;
  private readonly rowBytes: number;
  private readonly diff: Uint32Array;
  /** a row's filtered bytes as aligned words (RGB: four pixels packed in three words), copied into raw at its place */
  private readonly row32: Uint32Array;
  private readonly row8: Uint8Array;
  private next = 0;
  private a = 1;
  private b = 0;

  constructor(
    input: Uint8Array,
    readonly width: number,
    readonly height: number,
    { bottomUp = false, opaque: known }: PngInput,
  ) {
    if (input.length !== width * height * 4)
      throw new Error(`encodePng: expected ${width * height * 4} bytes, got ${input.length}`);
    // a view of 32-bit words needs 4-byte alignment: an unaligned picture (rare: a pooled small Buffer) is copied
    this.rgba = input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
    this.w32 = words(this.rgba);
    this.opaque = known === true || isOpaque(this.rgba, this.w32);
    this.bottomUp = bottomUp;
    this.stride = width * (this.opaque ? 3 : 4);
    this.rowBytes = width * 4;
    this.raw = Buffer.allocUnsafe((this.stride + 1) * height);
    this.src = Buffer.from(this.rgba.buffer, this.rgba.byteOffset, this.rgba.length);
    this.diff = new Uint32Array(width);
    this.row32 = new Uint32Array((this.stride + 3) >>> 2);
    this.row8 = new Uint8Array(this.row32.buffer, 0, this.stride);
    this.zeroRow = new Uint8Array(height);
  }

  /** the Adler-32 of every row filled */
  adler(): number {
    return ((this.b << 16) | this.a) >>> 0;
  }

  /** Packs and filters rows [y0, y1) (the next rows, in order): None for the first row, Up for the rest. */
  rows(y0: number, y1: number): void {
    if (y0 !== this.next) throw new Error(`encodePng: rows from ${y0}, expected ${this.next}`);
    this.next = y1;
    const { raw, src, w32, diff, row32, row8, stride, rowBytes, width, height, bottomUp, opaque } = this;
    for (let y = y0; y < y1; y++) {
      const o = y * (stride + 1);
      const filter = y === 0 ? 0 : 2;
      raw[o] = filter;
      // the picture's row y and the one above it (in the picture's own order)
      const i = (bottomUp ? height - 1 - y : y) * rowBytes;
      const above = bottomUp ? i + rowBytes : i - rowBytes;
      if (y > 0 && src.compare(src, above, above + rowBytes, i, i + rowBytes) === 0) {
        raw.fill(0, o + 1, o + 1 + stride);
        this.zeros(y, filter);
        continue;
      }
      if (!w32) {
        byteRow(this.rgba, row8, i, y > 0 ? above : -1, width, opaque);
      } else {
        const p = i >>> 2;
        const out = opaque ? diff : row32;
        if (y === 0) out.set(w32.subarray(p, p + width));
        else
          for (let x = 0, q = above >>> 2; x < width; x++) {
            const a = w32[p + x]!;
            const b = w32[q + x]!;
            out[x] = (((a | HI) >>> 0) - (b & LO)) ^ ((a ^ ~b) & HI);
          }
        if (opaque) packRgb(diff, row32, row8, width);
      }
      raw.set(row8, o + 1);
      this.check(y, filter);
    }
  }

  /**
   * Adds a row's filtered bytes (row32) to the Adler-32, after its filter byte, and marks the row when they are all
   * zeros. Taken a word at a time: within a block, `sum` adds the bytes and `t` the running sums, so a word of zeros
   * (most of a row beside a drawn shape) adds 4 sums to t in one step. At most 1024 bytes a block, so t stays an
   * exact integer before the block is folded in.
   */
  private check(y: number, filter: number): void {
    const { row32, row8, stride } = this;
    let a = (this.a + filter) % ADLER_MOD;
    let b = (this.b + a) % ADLER_MOD;
    // a big-endian machine's words hold the bytes the other way round: byte by byte there
    const words = LITTLE_ENDIAN ? stride >>> 2 : 0;
    let any = 0;
    for (let k = 0; k < words;) {
      const stop = Math.min(words, k + 256);
      const n = (stop - k) * 4;
      let sum = 0;
      let t = 0;
      for (; k < stop; k++) {
        const w = row32[k]!;
        if (w === 0) {
          t += 4 * sum;
          continue;
        }
        any |= w;
        sum += w & 0xff;
        t += sum;
        sum += (w >>> 8) & 0xff;
        t += sum;
        sum += (w >>> 16) & 0xff;
        t += sum;
        sum += w >>> 24;
        t += sum;
      }
      b = (b + n * a + t) % ADLER_MOD;
      a = (a + sum) % ADLER_MOD;
    }
    // the row's last bytes, fewer than a word
    for (let o = words * 4; o < stride; o++) {
      const v = row8[o]!;
      any |= v;
      a = (a + v) % ADLER_MOD;
      b = (b + a) % ADLER_MOD;
    }
    this.a = a;
    this.b = b;
    this.zeroRow[y] = any === 0 ? 1 : 0;
  }

  /** a row of zeros: a is unchanged by each zero and b grows by a each time */
  private zeros(y: number, filter: number): void {
    const a = (this.a + filter) % ADLER_MOD;
    this.b = (this.b + a + (((this.stride % ADLER_MOD) * a) % ADLER_MOD)) % ADLER_MOD;
    this.a = a;
    this.zeroRow[y] = 1;
  }

  png(idat: Buffer): Buffer {
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(this.width, 0);
    ihdr.writeUInt32BE(this.height, 4);
    ihdr[8] = 8;
    ihdr[9] = this.opaque ? 2 : 6;
    ihdr[10] = 0;
    ihdr[11] = 0;
    ihdr[12] = 0;
    return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))]);
  }
}

/**
 * RGBA words (little-endian: R in the low byte) as RGB bytes, four pixels in three words; the last pixels of a row
 * whose width is not a multiple of four byte by byte.
 */
function packRgb(px: Uint32Array, out: Uint32Array, outBytes: Uint8Array, width: number) {
  const quads = width >>> 2;
  for (let q = 0, x = 0, k = 0; q < quads; q++, x += 4, k += 3) {
    const p0 = px[x]!;
    const p1 = px[x + 1]!;
    const p2 = px[x + 2]!;
    const p3 = px[x + 3]!;
    out[k] = (p0 & 0xffffff) | (p1 << 24);
    out[k + 1] = ((p1 >>> 8) & 0xffff) | (p2 << 16);
    out[k + 2] = ((p2 >>> 16) & 0xff) | (p3 << 8);
  }
  for (let x = quads * 4, o = quads * 12; x < width; x++) {
    const d = px[x]!;
    outBytes[o++] = d & 0xff;
    outBytes[o++] = (d >>> 8) & 0xff;
    outBytes[o++] = (d >>> 16) & 0xff;
  }
}

/** One row byte by byte (a big-endian machine, where the word layout differs): prev -1 for the first row. */
function byteRow(rgba: Uint8Array, out: Uint8Array, i: number, prev: number, width: number, opaque: boolean) {
  for (let x = 0, o = 0; x < width * 4; x++) {
    if (opaque && (x & 3) === 3) continue;
    out[o++] = prev < 0 ? rgba[i + x]! : (rgba[i + x]! - rgba[prev + x]!) & 0xff;
  }
}
