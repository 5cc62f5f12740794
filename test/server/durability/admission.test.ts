// Finding 5 of issue 10: jobs that can never finish are refused at the door (400 too_much_work, the estimate
// documented in docs/durability.md), the queue cap holds exactly under concurrent POSTs, and the queue's order lets
// short jobs go first without starving a long one (shortest estimate first, with aging).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedLine, startApp, FakeRenderer, gate } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { MOVING } from '../../helpers/video.js';
import { EVAL_NS_PER_NODE, EVAL_NS_PER_STEP, estimateWork } from '../../../src/render/work-estimate.js';
import { prepare } from '../../../src/render/prepare.js';
import { STEP_BUDGET } from '../../../src/lang/index.js';
import { stepHeavy } from '../../helpers/step-heavy.js';
import type { RenderJob, WorkEstimate } from '../../../src/render/renderer-port.js';

/** The fake renderer with the real estimate (no browser needed to estimate). */
class EstimatingRenderer extends FakeRenderer {
  async estimate(job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets'>): Promise<WorkEstimate | null> {
    return estimateWork(job);
  }
}

const UHD = { source: MOVING, params: { width: 3840, height: 2160, fps: 60, duration: 300 } };

test('3840x2160, 60 fps, 300 s is refused with 400 too_much_work naming the job limit; at the edge of the limit it is admitted', async () => {
  const t = await startApp({ renderer: new EstimatingRenderer() });
  try {
    const r = await post(t.app, '/v1/render', UHD);
    assert.equal(r.statusCode, 400, r.body);
    assert.equal(r.json().code, 'too_much_work');
    assert.match(r.json().error, /over the job limit of 900 s \(JOB_TIMEOUT_MS\)/);
    assert.match(r.json().error, /18000 frames of 3840x2160/);
  } finally {
    await t.close();
  }
  const seconds = estimateWork({ kind: 'video', ...UHD, assets: {} })!.seconds;
  for (const [limitMs, status] of [
    [Math.ceil(seconds * 1000), 202],
    [Math.floor(seconds * 1000) - 1, 400],
  ] as const) {
    const r2 = new EstimatingRenderer();
    r2.behaviour = () => new Promise(() => {}); // never renders: only admission is looked at
    const t2 = await startApp({ renderer: r2, config: { jobTimeoutMs: limitMs } });
    try {
      const r = await post(t2.app, '/v1/render', UHD);
      assert.equal(r.statusCode, status, `limit ${limitMs} ms for an estimate of ${seconds} s: ${r.body}`);
    } finally {
      await t2.app.jobs.close();
      await t2.close();
    }
  }
});

test('a scene that reads no time signal is estimated as one drawn frame: the same long video of it is admitted', () => {
  const still = MOVING.replace('animate { 0s => -400px, 1s => 400px }', '0px');
  const e = estimateWork({
    kind: 'video',
    source: still,
    params: { width: 1920, height: 1080, fps: 60, duration: 300 },
    assets: {},
  })!;
  assert.equal(e.drawnFrames, 1);
  assert.ok(e.seconds < 900, `${e.seconds} s`);
  const moving = estimateWork({
    kind: 'video',
    source: MOVING,
    params: { width: 1920, height: 1080, fps: 60, duration: 300 },
    assets: {},
  })!;
  assert.equal(moving.drawnFrames, 18000);
});

test('MAX_QUEUED_JOBS is exact under 200 concurrent POSTs: 50 admitted, 150 refused with 503 queue_full', async () => {
  const r = new FakeRenderer();
  const hold = gate();
  r.behaviour = () => hold.promise;
  const t = await startApp({ renderer: r, config: { maxQueuedJobs: 50 } });
  try {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post(t.app, '/v1/frame', { source: `// ${i}\n${MOVING}` })),
    );
    const by = (s: number) => answers.filter((a) => a.statusCode === s).length;
    assert.equal(by(202), 50);
    assert.equal(by(503), 150);
    assert.equal(embeddedLine(t.app).size, 50);
    assert.ok(answers.filter((a) => a.statusCode === 503).every((a) => a.json().code === 'queue_full'));
  } finally {
    hold.open();
    await embeddedLine(t.app).onIdle();
    await t.close();
  }
});

test('fair queue: short jobs overtake a long one only until it has waited its own estimate; then it runs before later ones', async () => {
  let clock = 1_800_000_000_000;
  const r = new EstimatingRenderer();
  const hold = gate();
  const order: string[] = [];
  r.behaviour = async (job) => {
    // a video's chunks are rendered one by one: the order of jobs is the order of their first items
    const tag = job.source.split('\n')[0]!;
    if (!order.includes(tag)) order.push(tag);
    if (job.source.startsWith('// first')) await hold.promise;
  };
  const t = await startApp({ renderer: r, now: () => clock });
  try {
    const enqueue = async (tag: string, url: string, params: object) => {
      const a = await post(t.app, url, { source: `// ${tag}\n${MOVING}`, params });
      assert.equal(a.statusCode, 202, a.body);
      return a.json().job_id as string;
    };
    const small = { width: 64, height: 64 };
    await enqueue('first', '/v1/frame', small);
    const long = await enqueue('long', '/v1/render', { width: 1280, height: 720, fps: 30, duration: 60 });
    await enqueue('f1', '/v1/frame', small);
    await enqueue('f2', '/v1/frame', small);
    const pos = async (id: string) => (await t.app.inject({ url: `/v1/jobs/${id}` })).json().queue_position;
    assert.equal(await pos(long), 3, 'two frames went before the long video');
    const cost = estimateWork({
      kind: 'video',
      source: MOVING,
      params: { width: 1280, height: 720, fps: 30, duration: 60 },
      assets: {},
    })!.seconds;
    clock += Math.ceil(cost * 1000); // the video has now waited as long as its estimate
    const late = await enqueue('f3', '/v1/frame', small);
    assert.equal(await pos(long), 3);
    assert.equal(await pos(late), 4, 'a frame arriving later does not overtake it any more');
    hold.open();
    await waitJob(t.app, late);
    assert.deepEqual(order, ['// first', '// f1', '// f2', '// long', '// f3']);
  } finally {
    hold.open();
    await t.close();
  }
});

test('the estimate counts the codec: H.265 and ProRes encode slower than H.264, so the same clip estimates longer', () => {
  const est = (codec?: 'h264' | 'h265' | 'prores') =>
    estimateWork({
      kind: 'video',
      source: MOVING,
      params: { width: 1920, height: 1080, duration: 10, codec },
      assets: {},
    })!.seconds;
  assert.equal(est(), est('h264'));
  assert.ok(est('h265') > est('h264'), `${est('h265')} vs ${est('h264')}`);
  assert.ok(est('prores') > est('h264'));
});

// Issue 24 row 7: evaluation is part of the estimate. The report's scene spends 188,420 of the 200,000 steps a frame.
const HEAVY = {
  kind: 'video' as const,
  source: stepHeavy(),
  params: { width: 64, height: 64, fps: 60, duration: 60 },
  assets: {},
};

test('the estimate counts evaluation: frames x the steps and nodes of a frame, at the edge of the job limit', async () => {
  const heavy = estimateWork(HEAVY)!;
  const light = estimateWork({ ...HEAVY, source: stepHeavy(0) })!;
  assert.equal(heavy.stepsPerFrame, 188_420);
  const frames = 3600;
  const expected = frames * (heavy.stepsPerFrame - light.stepsPerFrame) * EVAL_NS_PER_STEP * 1e-9;
  assert.ok(Math.abs(heavy.seconds - light.seconds - expected) < 1e-6, `${heavy.seconds} - ${light.seconds}`);
  assert.ok(
    Math.abs(heavy.evaluateSeconds - frames * (188_420 * EVAL_NS_PER_STEP + 7 * EVAL_NS_PER_NODE) * 1e-9) < 1e-6,
  );
  for (const [limitMs, status] of [
    [Math.ceil(heavy.seconds * 1000), 202],
    [Math.floor(heavy.seconds * 1000) - 1, 400],
  ] as const) {
    const r2 = new EstimatingRenderer();
    r2.behaviour = () => new Promise(() => {}); // never renders: only admission is looked at
    const t2 = await startApp({ renderer: r2, config: { jobTimeoutMs: limitMs } });
    try {
      const r = await post(t2.app, '/v1/render', HEAVY);
      assert.equal(r.statusCode, status, `limit ${limitMs} ms for an estimate of ${heavy.seconds} s: ${r.body}`);
      if (status === 400) {
        assert.equal(r.json().code, 'too_much_work');
        assert.match(r.json().error, /of which about \d+ s evaluating the scene \(188420 steps a frame\)/);
      }
    } finally {
      await t2.app.jobs.close();
      await t2.close();
    }
  }
});

test('the estimate samples frames: a scene whose work grows over the clip is estimated by its costliest sample', () => {
  const growing = (to: number) =>
    stepHeavy().replace('let k = f(f, 13);', `let k = f(f, animate { 0s => 0, 60s => ${to} });`);
  const job = { ...HEAVY, source: growing(13) };
  assert.ok(prepare({ ...job, id: 'x', outPath: '' }).first.steps < 100, 'the first frame is cheap');
  const e = estimateWork(job)!;
  assert.ok(e.stepsPerFrame > 150_000 && e.stepsPerFrame <= STEP_BUDGET, `${e.stepsPerFrame} steps`);
  // past the step budget at the end: that sample fails (the job will fail there with EVL006), the middle one counts
  const over = estimateWork({ ...job, source: growing(14) })!;
  assert.ok(over.stepsPerFrame > 1000 && over.stepsPerFrame < STEP_BUDGET, `${over.stepsPerFrame} steps`);
});
