// The per-frame draw budget in the page (FRAME_BUDGET_MS, LIMITS.frameDrawMs by default): a frame whose build, draw
// and read back take longer ends its job with code frame_budget and a message naming the budget; the page it held is
// closed and replaced, so the renderer goes on. Real Chromium; the budget is set so low (20 ms) that the 4,096-rect
// graph (4,096 meshes built and drawn in the page) is far past it on any machine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realRenderer } from '../helpers/app.js';
import { rectGraph } from '../helpers/rect-graph.js';
import { JobFailure, type RenderJob } from '../../src/render/renderer-port.js';
import { LIMITS } from '../../src/contract/limits.js';
import { loadConfig } from '../../src/config/settings.js';
import type { ChromiumRenderer } from '../../src/render/chromium-renderer.js';

const BUDGET_MS = 20;

let dir: string;
let renderer: ChromiumRenderer;
let generous: ChromiumRenderer;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmrender-frame-budget-'));
  renderer = realRenderer(1, { frameBudgetMs: BUDGET_MS });
  generous = realRenderer(1);
  await renderer.start();
  await generous.start();
});
after(async () => {
  await renderer?.close();
  await generous?.close();
  await rm(dir, { recursive: true, force: true });
});

const job = (id: string, source: string, kind: 'frame' | 'video', params: RenderJob['params']): RenderJob => ({
  id,
  kind,
  source,
  params,
  assets: {},
  outPath: join(dir, `${id}.${kind === 'frame' ? 'png' : 'mp4'}`),
});
const hooks = () => ({ signal: new AbortController().signal });

test('FRAME_BUDGET_MS: the default is the limit of src/contract/limits.ts; 1 is accepted, 0 is refused', () => {
  assert.equal(loadConfig({}).frameBudgetMs, LIMITS.frameDrawMs);
  assert.equal(loadConfig({ FRAME_BUDGET_MS: '1' }).frameBudgetMs, 1);
  assert.throws(() => loadConfig({ FRAME_BUDGET_MS: '0' }), /FRAME_BUDGET_MS/);
});

const overBudget = (e: unknown) =>
  e instanceof JobFailure &&
  e.code === 'frame_budget' &&
  e.message ===
    `render failed: one frame took over ${BUDGET_MS / 1000} s to draw (the per-frame budget, FRAME_BUDGET_MS)`;

for (const kind of ['frame', 'video'] as const) {
  test(`a ${kind} whose frame takes longer than the budget ends with frame_budget, again on a fresh page`, async () => {
    const heavy = (n: number) =>
      job(`heavy-${kind}-${n}`, rectGraph(12, kind === 'video'), kind, {
        width: 640,
        height: 360,
        ...(kind === 'video' ? { fps: 10, duration: 1 } : {}),
      });
    await assert.rejects(renderer.render(heavy(1), hooks()), overBudget);
    // the page that ran over was closed; the next job gets a fresh one and the same answer (not a dead page's error)
    await assert.rejects(renderer.render(heavy(2), hooks()), overBudget);
  });
}

test('the same graph within the default budget renders (the budget, not the scene, ended those jobs)', async () => {
  const ok = job('heavy-default', rectGraph(12), 'frame', { width: 640, height: 360 });
  const r = await generous.render(ok, hooks());
  assert.equal(r.width, 640);
  assert.equal(readFileSync(ok.outPath).subarray(1, 4).toString('latin1'), 'PNG');
});
