import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentScore, type Rgba } from '../../scripts/lib/score.js';

function canvas(w: number, h: number, bg: [number, number, number]): Rgba {
  const data = new Uint8Array(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...bg, 255], i * 4);
  return { width: w, height: h, data };
}
function fillRect(img: Rgba, x0: number, y0: number, x1: number, y1: number, c: [number, number, number]) {
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) img.data.set([...c, 255], (y * img.width + x) * 4);
}

test('identical frames score 1', () => {
  const a = canvas(64, 64, [10, 10, 30]);
  fillRect(a, 10, 10, 40, 40, [255, 51, 153]);
  assert.equal(contentScore(a, a).score, 1);
});

test('a background-only frame scores near 0 against one with content', () => {
  const ref = canvas(64, 64, [10, 10, 30]);
  fillRect(ref, 10, 10, 40, 40, [255, 51, 153]);
  const ours = canvas(64, 64, [10, 10, 30]);
  assert.ok(contentScore(ours, ref).score < 0.01);
});

test('a shift of 2 px still matches, a shift of 6 px loses the edges', () => {
  const ref = canvas(64, 64, [0, 0, 0]);
  fillRect(ref, 10, 10, 20, 20, [200, 200, 200]);
  const near = canvas(64, 64, [0, 0, 0]);
  fillRect(near, 12, 10, 22, 20, [200, 200, 200]);
  assert.equal(contentScore(near, ref).score, 1);
  const far = canvas(64, 64, [0, 0, 0]);
  fillRect(far, 16, 10, 26, 20, [200, 200, 200]);
  const s = contentScore(far, ref).score;
  // columns 14..19 of the reference square find a partner within 2 px: 6 of 10
  assert.ok(Math.abs(s - 0.6) < 1e-9, `score ${s}`);
});

test('colour off by more than 24 in one channel does not match', () => {
  const ref = canvas(32, 32, [0, 0, 0]);
  fillRect(ref, 0, 16, 32, 32, [100, 100, 100]);
  const ours = canvas(32, 32, [0, 0, 0]);
  fillRect(ours, 0, 16, 32, 32, [100, 130, 100]);
  assert.equal(contentScore(ours, ref).score, 0);
});

test('frames of different sizes are refused', () => {
  assert.throws(() => contentScore(canvas(4, 4, [0, 0, 0]), canvas(5, 4, [0, 0, 0])), /size differs/);
});
