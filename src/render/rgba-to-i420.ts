// Node's side of the video pixel format: RGBA (top row first) to I420 by the same conversion the page runs
// (src/contract/yuv.ts), so both give the same bytes. The tests' oracle for the page's conversion, and the bench's
// "rgba" path.
import { i420Bytes, i420Converter } from '../contract/yuv.js';

/** RGBA -> I420 as a Buffer, at once. */
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
