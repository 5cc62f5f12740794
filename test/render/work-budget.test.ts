// The evaluation work budget of a clip (LIMITS.evaluationNodesPerJob): at its edge and one past it, and the animated
// graph of issue 10 refused by prepare() before anything is drawn, with code work_budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS } from '../../src/contract/limits.js';
import { checkWorkBudget, prepare, WORK_BUDGET_CODE } from '../../src/render/prepare.js';
import { JobFailure } from '../../src/render/renderer-port.js';

function animatedGraph(levels: number): string {
  const lines = [
    'runner "0.0.3";',
    'use std.shapes.*;',
    'use std.anim.*;',
    'scene graph(duration: Duration = 300s) -> Frame {',
    '  let l0 = rect(width: 4px, height: 4px);',
  ];
  for (let i = 1; i <= levels; i++) lines.push(`  let l${i} = compose [l${i - 1}, l${i - 1}];`);
  lines.push(`  compose [l${levels}.translate(x: animate { 0s => 0px, 300s => 100px })]`, '}');
  return lines.join('\n') + '\n';
}

test(`the work budget: ${LIMITS.evaluationNodesPerJob} nodes pass, one more is work_budget`, () => {
  assert.doesNotThrow(() => checkWorkBudget(LIMITS.evaluationNodesPerJob, 1000));
  assert.throws(
    () => checkWorkBudget(LIMITS.evaluationNodesPerJob + 1, 1000),
    (e) =>
      e instanceof JobFailure &&
      e.code === WORK_BUDGET_CODE &&
      e.code === 'work_budget' &&
      /work budget/.test(e.message),
  );
});

test('a 4,096-rect graph moving for 300 s at 60 fps is refused by prepare() (work_budget); still, the same graph is not', () => {
  const job = {
    id: 'x',
    kind: 'video' as const,
    source: animatedGraph(12),
    params: { width: 64, height: 64, fps: 60, duration: 300 },
    assets: {},
    outPath: '',
  };
  assert.throws(
    () => prepare(job),
    (e) => e instanceof JobFailure && e.code === WORK_BUDGET_CODE,
  );
  const still = { ...job, source: job.source.replace('animate { 0s => 0px, 300s => 100px }', '0px') };
  assert.equal(prepare(still).first.timeFree, true);
});
