// Pure rules: output size (service.md "Rendering rules"), the Range header, the ASS001 position, the frame plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outputSize, prepare } from '../../src/render/prepare.js';
import { literalPosition, normalizeAssetPath } from '../../src/render/job-assets.js';
import { parseRange } from '../../src/server/http/byte-range.js';
import { JobFailure } from '../../src/render/renderer-port.js';

test('output size: neither given -> the design frame; one given -> aspect follows; both -> exactly; video even', () => {
  assert.deepEqual(outputSize({ width: 1920, height: 1080 }, {}, false), { width: 1920, height: 1080 });
  assert.deepEqual(outputSize({ width: 1080, height: 1080 }, {}, false), { width: 1080, height: 1080 });
  assert.deepEqual(outputSize({ width: 300, height: 300 }, {}, false), { width: 300, height: 300 });
  assert.deepEqual(outputSize({ width: 1920, height: 1080 }, { width: 960 }, false), { width: 960, height: 540 });
  assert.deepEqual(outputSize({ width: 1920, height: 1080 }, { height: 720 }, false), { width: 1280, height: 720 });
  assert.deepEqual(outputSize({ width: 1080, height: 1080 }, { width: 1920, height: 1080 }, false), {
    width: 1920,
    height: 1080,
  });
  assert.deepEqual(outputSize({ width: 1920, height: 1080 }, { width: 101, height: 51 }, true), {
    width: 102,
    height: 52,
  });
  assert.deepEqual(outputSize({ width: 1920, height: 1080 }, { width: 101, height: 51 }, false), {
    width: 101,
    height: 51,
  });
  assert.deepEqual(outputSize({ width: 1920, height: 1080 }, { width: 333 }, true), { width: 334, height: 188 });
  // clamped to the limits: a square design frame asked 3840 wide cannot be 3840 tall
  assert.deepEqual(outputSize({ width: 1000, height: 1000 }, { width: 3840 }, false), { width: 3840, height: 2160 });
  assert.deepEqual(outputSize({ width: 100, height: 10000 }, { height: 16 }, false), { width: 16, height: 16 });
  // a design frame larger than the limits is scaled down to fit, aspect kept
  assert.deepEqual(outputSize({ width: 7680, height: 4320 }, {}, false), { width: 3840, height: 2160 });
  assert.deepEqual(outputSize({ width: 4000, height: 4000 }, {}, false), { width: 2160, height: 2160 });
});

test('Range parsing', () => {
  assert.deepEqual(parseRange('bytes=0-9', 100), { start: 0, end: 9 });
  assert.deepEqual(parseRange('bytes=90-', 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange('bytes=-10', 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange('bytes=-1000', 100), { start: 0, end: 99 });
  assert.deepEqual(parseRange('bytes=5-1000', 100), { start: 5, end: 99 });
  assert.equal(parseRange('bytes=100-', 100), 'unsatisfiable');
  assert.equal(parseRange('bytes=-0', 100), 'unsatisfiable');
  assert.equal(parseRange('bytes=0-1,5-6', 100), null);
  assert.equal(parseRange('bytes=9-2', 100), null);
  assert.equal(parseRange('lines=1-2', 100), null);
});

test('ASS001 position: line and UTF-8 column of the first literal with the path', () => {
  assert.deepEqual(literalPosition('a\n  x = image("/img/a.jpg")', '/img/a.jpg'), { line: 2, column: 13 });
  assert.deepEqual(literalPosition('é image("/a")', '/a'), { line: 1, column: 10 });
  assert.equal(literalPosition('image(p)', '/a'), undefined);
  assert.equal(normalizeAssetPath('img/a.jpg'), '/img/a.jpg');
  assert.equal(normalizeAssetPath('/img/a%20b.jpg'), '/img/a b.jpg');
});

const SRC = (extra = '') =>
  `runner "0.0.3";\nuse std.shapes.*;\nscene s(${extra}) -> Frame {\n  let bg = rect(width: 1080px, height: 1080px, fill: #204060);\n  compose [bg]\n}\n`;
const job = (source: string, kind: 'frame' | 'video', params = {}, assets = {}) => ({
  id: 'x',
  kind,
  source,
  params,
  assets,
  outPath: '/nonexistent',
});

test('frame plan: frames = round(duration x fps), duration from params, else the scene, else 6 s', () => {
  assert.equal(prepare(job(SRC(), 'video')).frames, 180);
  assert.equal(prepare(job(SRC('duration: Duration = 2s'), 'video')).frames, 60);
  assert.equal(prepare(job(SRC('duration: Duration = 2s'), 'video', { duration: 0.5, fps: 24 })).frames, 12);
  assert.equal(prepare(job(SRC(), 'video', { duration: 0.1, fps: 1 })).frames, 1);
  assert.equal(prepare(job(SRC(), 'video', { duration: 1.25, fps: 10 })).frames, 13);
  // a declared duration past the 300 s limit fails the video at once instead of rendering for ever
  assert.throws(
    () => prepare(job(SRC('duration: Duration = 301s'), 'video')),
    (e: unknown) => e instanceof JobFailure && e.code === 'invalid_params' && /over the 300 s limit/.test(e.message),
  );
  assert.throws(
    () => prepare(job(SRC('duration: Duration = 1000000000s'), 'video', { fps: 5 })),
    /over the 300 s limit/,
  );
  assert.equal(prepare(job(SRC('duration: Duration = 300s'), 'video', { fps: 1 })).frames, 300);
  assert.equal(prepare(job(SRC('duration: Duration = 1000000000s'), 'video', { duration: 1, fps: 5 })).frames, 5);
  assert.equal(prepare(job(SRC('duration: Duration = 1000000000s'), 'frame')).frames, 1);
  const f = prepare(job(SRC(), 'frame'));
  assert.deepEqual([f.width, f.height, f.frames], [1080, 1080, 1]);
});

test('prepare: compile failures and unmapped images are JobFailures with codes', () => {
  const bad = (() => {
    try {
      prepare(job('runner "9.9.9";\nscene s() -> Frame { compose [] }', 'frame'));
    } catch (e) {
      return e;
    }
  })();
  assert.ok(bad instanceof JobFailure);
  assert.equal(bad.code, 'RUN001');
  const img = 'runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  compose [image("img/x.png")]\n}\n';
  assert.throws(
    () => prepare(job(img, 'frame')),
    (e: unknown) =>
      e instanceof JobFailure &&
      e.code === 'ASS001' &&
      e.message === 'ASS001 image "img/x.png" is not an uploaded asset of this job at line 4, column 18',
  );
  // mapped either as written or as the URL path the page will request
  assert.equal(prepare(job(img, 'frame', {}, { 'img/x.png': '/f' })).assets.byUrlPath.get('/img/x.png'), '/f');
  assert.equal(prepare(job(img, 'frame', {}, { '/img/x.png': '/f' })).assets.byUrlPath.get('/img/x.png'), '/f');
});
