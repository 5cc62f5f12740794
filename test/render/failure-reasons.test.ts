// No internal error text reaches a client: what the page or Node throws becomes a plain reason, under a registered
// code (never null).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageFailure, stageFailure, failureOf, isNoSpace } from '../../src/render/failure-reasons.js';
import { JobFailure } from '../../src/render/renderer-port.js';

const pageReason = (e: { code: string; message: string }) => pageFailure(e).message;
const stageReason = (e: unknown) => stageFailure(e).message;

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

test('every failure has a registered code: page errors, stage errors, the time limit, a stop, a JobFailure', () => {
  assert.equal(pageFailure({ code: 'draw_failed', message: 'Invalid array length' }).code, 'out_of_memory');
  assert.equal(pageFailure({ code: 'draw_failed', message: 'x is undefined' }).code, 'page_failed');
  assert.equal(pageFailure({ code: 'context_lost', message: 'lost' }).code, 'page_failed');
  assert.equal(pageFailure({ code: 'bad_value', message: 'x' }).code, 'internal_error');
  const enospc = Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
  assert.equal(stageFailure(enospc).code, 'storage_full');
  assert.equal(stageFailure(new Error('ffmpeg exited with code 1')).code, 'encoder_failed');
  assert.equal(stageFailure(new Error('Target page, context or browser has been closed')).code, 'page_crashed');
  assert.equal(stageFailure(new RangeError('Invalid array length')).code, 'out_of_memory');
  assert.equal(stageFailure(new Error('boom')).code, 'internal_error');
  assert.deepEqual(failureOf(new Error('x'), { timedOut: true, limitMs: 2500 }), {
    message: 'render timed out after 2.5 s (the job limit)',
    code: 'timeout',
  });
  assert.equal(failureOf(new Error('x'), { timedOut: false, aborted: true, limitMs: 1 }).code, 'interrupted');
  assert.deepEqual(failureOf(new JobFailure('NAM003 unknown', 'NAM003'), { timedOut: false, limitMs: 1 }), {
    message: 'NAM003 unknown',
    code: 'NAM003',
  });
  const own = { message: 'mine', code: 'storage_unavailable' } as const;
  assert.deepEqual(
    failureOf(new Error('x'), { timedOut: false, limitMs: 1 }, () => own),
    own,
  );
});
