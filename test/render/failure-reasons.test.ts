// No internal error text reaches a client: what the page or Node throws becomes a plain reason, under a registered
// code (never null).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageFailure, stageFailure, failureOf, isNoSpace } from '../../src/render/failure-reasons.js';
import { JobFailure } from '../../src/render/renderer-port.js';
import { encoderFailed, RawFramePipe } from '../../src/render/ffmpeg/process.js';
import { answered, pageCrashed } from '../../src/render/page/viewer-page.js';

const pageReason = (e: { code: string; message: string }) => pageFailure(e).message;
const stageReason = (e: unknown) => stageFailure(e).message;

const INTERNAL = /Invalid array length|RangeError|at \w+ \(|\.ts:|\.js:|\/work\/|ENOSPC/;

test("the page's own exceptions become plain reasons", () => {
  const cases = [
    { code: 'draw_too_large', message: 'Invalid array length' },
    {
      code: 'draw_too_large',
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
  assert.equal(pageFailure({ code: 'draw_too_large', message: 'Invalid array length' }).code, 'out_of_memory');
  // the page says which it was: a draw_failed is the page's failure whatever its words
  assert.equal(pageFailure({ code: 'draw_failed', message: 'Invalid array length' }).code, 'page_failed');
  assert.equal(pageFailure({ code: 'draw_failed', message: 'x is undefined' }).code, 'page_failed');
  assert.equal(pageFailure({ code: 'context_lost', message: 'lost' }).code, 'page_failed');
  assert.equal(pageFailure({ code: 'bad_value', message: 'x' }).code, 'internal_error');
  const enospc = Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
  assert.equal(stageFailure(enospc).code, 'storage_full');
  assert.equal(stageFailure(encoderFailed('ffmpeg exited with code 1')).code, 'encoder_failed');
  assert.equal(
    stageFailure(encoderFailed('ffmpeg exited with code 1'), 'gif').message,
    'render failed: the GIF encoder failed',
  );
  assert.equal(
    stageFailure(pageCrashed(new Error('Target page, context or browser has been closed'))).code,
    'page_crashed',
  );
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

test("a failure's code comes from where it happened, never from its words", async () => {
  // words that once decided the code: an error of ours that merely says them is an internal error
  for (const m of ['ffmpeg exited with code 1', 'Target closed', 'the browser has been closed', 'out of memory'])
    assert.equal(stageFailure(new Error(m)).code, 'internal_error', m);
  // Node's own RangeErrors carry a code and are a bug of ours, not the heap's
  const outOfRange = Object.assign(new RangeError('The value of "offset" is out of range'), {
    code: 'ERR_OUT_OF_RANGE',
  });
  assert.equal(stageFailure(outOfRange).code, 'internal_error');
  // ffmpeg refusing its arguments: its pipe says encoder_failed, its stderr kept for the log only
  const pipe = new RawFramePipe('ffmpeg', ['-hide_banner', '-f', 'no-such-format', '-i', '-', '-f', 'null', '-'], 4);
  const failed = await pipe.finish().then(
    () => assert.fail('ffmpeg took a format that does not exist'),
    (err: unknown) => err,
  );
  const end = stageFailure(failed);
  assert.equal(end.code, 'encoder_failed');
  assert.doesNotMatch(end.message, /no-such-format/);
  // a page call that rejects (the page or its browser gone) ends page_crashed
  const gone = await answered(Promise.reject(new Error('Target crashed'))).catch((err: unknown) => err);
  assert.equal(stageFailure(gone).code, 'page_crashed');
  assert.equal(stageFailure(gone).message, stageFailure(pageCrashed(new Error('x'))).message);
});
