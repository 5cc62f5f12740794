// The heavy per-frame stages in Node (PNG packing and deflate, RGBA -> I420) give the event loop turns while they
// work on a 4K picture, and give the same bytes as their one-piece versions; admission estimates run off the loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodePng, encodePngAsync } from '../../src/render/png.js';
import { rgbaToI420, rgbaToI420Async } from '../../src/render/rgba-to-i420.js';
import { prng } from '../helpers/prng.js';
import { EvalThreads } from '../../src/render/eval-thread.js';
import { estimateWork } from '../../src/render/work-estimate.js';
import { rectGraph } from '../helpers/rect-graph.js';

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

test('admission estimates run in a worker thread: the same estimate as estimateWork, with the event loop turning meanwhile', async () => {
  const estimates = new EvalThreads();
  try {
    // the 4,096-rect graph: compiling it and evaluating its first frame is tens of milliseconds of one core
    const job = {
      kind: 'video' as const,
      source: rectGraph(12, true),
      params: { width: 640, height: 360, fps: 10, duration: 30 },
      assets: {},
    };
    await estimates.estimate(job); // the thread's start-up is not what is measured
    const { value, turns } = await turnsDuring(() => estimates.estimate(job));
    assert.deepEqual(value, estimateWork(job));
    assert.ok(turns > 1, `the event loop got ${turns} turns`);
    // a source that does not compile has no estimate (its job fails on its own diagnostic), and the thread goes on
    assert.equal(await estimates.estimate({ ...job, source: 'scene broken(' }), null);
    assert.deepEqual(await estimates.estimate(job), value);
  } finally {
    await estimates.close();
  }
});
