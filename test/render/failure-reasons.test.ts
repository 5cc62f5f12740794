// No internal error text reaches a client: what the page or Node throws becomes a plain reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageReason, stageReason, isNoSpace } from '../../src/render/failure-reasons.js';

const INTERNAL = /Invalid array length|RangeError|at \w+ \(|\.ts:|\.js:|\/work\/|ENOSPC/;

test("the page's own exceptions become plain reasons", () => {
  const cases = [
    { code: 'draw_failed', message: 'Invalid array length' },
    {
      code: 'draw_failed',
      message: 'RangeError: Array buffer allocation failed\n    at new ArrayBuffer (<anonymous>)',
    },
    { code: 'draw_failed', message: "Cannot read properties of undefined (reading 'x')" },
    { code: 'context_lost', message: 'WebGL context lost: reload the page' },
    { code: 'bad_value', message: 'not a value tree' },
  ];
  for (const c of cases) {
    const r = pageReason(c);
    assert.match(r, /^render failed: /);
    assert.doesNotMatch(r, INTERNAL, r);
  }
  assert.match(pageReason(cases[0]!), /too large to draw/);
});

test("Node's errors become plain reasons; a full disk is said so", () => {
  const enospc = Object.assign(new Error("ENOSPC: no space left on device, write '/data/outputs/x.mp4.tmp'"), {
    code: 'ENOSPC',
  });
  assert.equal(isNoSpace(enospc), true);
  assert.equal(stageReason(enospc), 'render failed: the service ran out of disk space');
  assert.equal(
    stageReason(new RangeError('Invalid array length')),
    'render failed: the job needs more memory than the service has',
  );
  assert.equal(stageReason(new Error('something at /work/src/x.ts:12:3')), 'render failed: internal error');
  for (const e of [enospc, new RangeError('Invalid array length'), new Error('boom\n    at f (/x.js:1:1)')])
    assert.doesNotMatch(stageReason(e), INTERNAL);
});
