// Image bytes for limit tests.
import { crc32 } from 'node:zlib';

/** A PNG signature and IHDR declaring w x h (no pixel data: the header is what the pixel limit judges). */
export function pngHeader(w: number, h: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  b[24] = 8;
  b[25] = 6;
  b.writeUInt32BE(crc32(b.subarray(12, 29)), 29);
  return b;
}
