// imageSize reads the pixel size from the header of PNG, JPEG, WebP (lossy, lossless, extended) and GIF files that
// ffmpeg writes, and the limit is judged at its edge and one past it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { imageSize, imageSizeRefusal } from '../../src/contract/image-size.js';
import { LIMITS } from '../../src/contract/limits.js';
import { pngHeader } from '../helpers/images.js';

function ffmpegImage(w: number, h: number, args: string[], ext: string): Buffer {
  const r = spawnSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=${w}x${h}:rate=1`,
      '-frames:v',
      '1',
      ...args,
      '-f',
      'image2',
      '-c:v',
      ext,
      'pipe:1',
    ],
    { maxBuffer: 1 << 26 },
  );
  assert.equal(r.status, 0, String(r.stderr));
  return r.stdout;
}

test('the declared size of PNG, JPEG, WebP (lossy and lossless) and GIF files', () => {
  const cases: [string, Buffer][] = [
    ['png', ffmpegImage(321, 123, [], 'png')],
    ['jpeg', ffmpegImage(321, 123, ['-pix_fmt', 'yuvj420p'], 'mjpeg')],
    ['webp lossy', ffmpegImage(321, 123, [], 'libwebp')],
    ['webp lossless', ffmpegImage(321, 123, ['-lossless', '1'], 'libwebp')],
    ['gif', ffmpegImage(321, 123, [], 'gif')],
  ];
  for (const [name, bytes] of cases) assert.deepEqual(imageSize(bytes), { width: 321, height: 123 }, name);
  assert.equal(imageSize(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
});

test(`the image limit: ${LIMITS.image.pixels} pixels and ${LIMITS.image.side} per side, at the edge and one past`, () => {
  const side = LIMITS.image.side;
  const rows = Math.floor(LIMITS.image.pixels / side);
  assert.equal(imageSizeRefusal(imageSize(pngHeader(side, rows))!, LIMITS.image), null);
  assert.match(imageSizeRefusal(imageSize(pngHeader(side, rows + 1))!, LIMITS.image)!, /megapixels/);
  assert.equal(imageSizeRefusal({ width: side, height: 1 }, LIMITS.image), null);
  assert.match(imageSizeRefusal({ width: side + 1, height: 1 }, LIMITS.image)!, /side over/);
  assert.match(imageSizeRefusal(imageSize(pngHeader(20000, 20000))!, LIMITS.image)!, /20000x20000/);
});
