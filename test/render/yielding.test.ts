// The heavy per-frame stages in Node (PNG packing and deflate, RGBA -> I420) give the event loop turns while they
// work on a 4K picture, and give the same bytes as their one-piece versions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodePng, encodePngAsync } from '../../src/render/png.js';
import { rgbaToI420, rgbaToI420Async } from '../../src/render/ffmpeg.js';
import { prng } from '../helpers/prng.js';

const W = 3840;
const H = 2160;

function picture(opaque: boolean): Buffer {
  const rnd = prng(10);
  const b = Buffer.alloc(W * H * 4);
  for (let i = 0; i < b.length; i += 4) {
    const v = (i >> 10) & 255;
    b[i] = v;
    b[i + 1] = (v * 3) & 255;
    b[i + 2] = rnd() < 0.01 ? 255 : 0;
    b[i + 3] = opaque ? 255 : 128;
  }
  return b;
}

/** Runs work while a setImmediate chain counts the turns the event loop got meanwhile. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const value = await work();
  running = false;
  return { value, turns };
}

for (const opaque of [true, false]) {
  test(`encodePngAsync (${opaque ? 'opaque' : 'with alpha'}, 3840x2160): the bytes of encodePng, with turns of the event loop`, async () => {
    const rgba = picture(opaque);
    const { value, turns } = await turnsDuring(() => encodePngAsync(rgba, W, H));
    assert.ok(value.equals(encodePng(rgba, W, H)));
    assert.ok(turns > 1, `the event loop got ${turns} turns`);
  });
}

test('rgbaToI420Async (3840x2160): the bytes of rgbaToI420, with turns of the event loop', async () => {
  const rgba = picture(true);
  const { value, turns } = await turnsDuring(() => rgbaToI420Async(rgba, W, H));
  assert.ok(value.equals(rgbaToI420(rgba, W, H)));
  assert.ok(turns > 0, `the event loop got ${turns} turns`);
});
