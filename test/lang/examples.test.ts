import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { compile, valueSchema, designFrame, imagePaths, formatJobMessage } from '../../src/lang/index.js';
import { examplesDir as exDir, hasCorpus, corpusSkip } from '../helpers/shared.js';

// The corpus's examples (../shared/examples); our own are checked in own-examples.test.ts.
const examples = hasCorpus
  ? readdirSync(exDir)
      .filter((f) => f.endsWith('.cm'))
      .sort()
  : [];
const skip = corpusSkip('its examples and errors/');

test('the example corpus is present', { skip }, () => {
  assert.ok(examples.length >= 13, `found ${examples.length}`);
});

for (const f of examples) {
  test(`example ${f} compiles clean and evaluates at t = 0, 1.5, 7`, () => {
    const c = compile(readFileSync(path.join(exDir, f), 'utf8'));
    assert.deepEqual(c.diagnostics, []);
    assert.equal(c.ok, true);
    assert.ok(c.program);
    for (const t of [0, 1.5, 7]) {
      const { value, diagnostics } = c.program.sceneAt(t);
      assert.deepEqual(diagnostics, [], `t=${t}`);
      // JSON round trip and schema: the viewer's only input
      const json = JSON.parse(JSON.stringify(value));
      assert.deepEqual(valueSchema.parse(json), value);
      assert.ok(JSON.stringify(value).length < 65536);
      assert.equal(value.kind, 'constructed');
      assert.ok(['compose', 'rect'].includes((value as { name: string }).name));
      // every time signal resolved
      assert.doesNotMatch(JSON.stringify(value), /"name":"(animate|wave|bounce|on_event|field_of)"/);
    }
  });
}

test('examples: design frames, images, durations, runners', { skip }, () => {
  const load = (f: string) => compile(readFileSync(path.join(exDir, f), 'utf8'));
  const ball = load('bouncing-ball.cm');
  const v = ball.program!.sceneAt(0).value;
  assert.deepEqual(designFrame(v), {
    width: 1920,
    height: 1080,
    background: { kind: 'image', path: '/img/starry_night.jpg' },
  });
  assert.deepEqual(imagePaths(v), ['/img/starry_night.jpg', '/img/earth_4k.jpg']);
  const pl = load('plinken-svg.cm');
  const f = designFrame(pl.program!.sceneAt(0).value);
  assert.equal(f.width, 1080);
  assert.equal(f.height, 1080);
  assert.equal(f.background?.kind, 'color');
  assert.equal(pl.runner, '0.0.5');
  assert.equal(pl.program!.durationSeconds, 6);
  assert.equal(load('title.cm').program!.durationSeconds, 12);
  assert.equal(load('lava-lamp.cm').program!.durationSeconds, 12);
  assert.equal(load('handdrawn.cm').program!.durationSeconds, 8);
  assert.deepEqual(imagePaths(load('handdrawn.cm').program!.sceneAt(0).value), ['/img/handdrawn.jpg']);
  assert.deepEqual(imagePaths(load('title.cm').program!.sceneAt(0).value), []);
  // stdlib.md §8 worked example values at t = 0.3
  const s = JSON.stringify(ball.program!.sceneAt(0.3).value);
  assert.match(s, /"name":"y","value":\{"kind":"number","value":18,"unit":"deg"\}/);
  assert.match(s, /"name":"y","value":\{"kind":"number","value":30(\.0+\d*)?,"unit":"px"\}/);
});

// examples/README.md ("Sources that must fail"): file → code, and the position we point at
const expected: Record<string, [string, number, number]> = {
  'syntax.cm': ['PAR100', 5, 45],
  'unknown-ident.cm': ['NAM003', 6, 16],
  'unknown-function.cm': ['NAM003', 5, 12],
  'forward-ref.cm': ['NAM004', 4, 11],
  'extrude-circle.cm': ['NAM007', 7, 33],
  'type-mismatch.cm': ['TYP002', 3, 20],
  'unit-mismatch.cm': ['UNT001', 3, 34],
  'unknown-runner.cm': ['RUN001', 1, 8],
};

test('examples/README.md lists the codes we check for errors/', { skip }, () => {
  const readme = readFileSync(path.join(exDir, 'README.md'), 'utf8').split('\n');
  const rows = readme.filter((l) => /^\| [a-z-]+\.cm \|/.test(l)).map((l) => l.split('|').map((x) => x.trim()));
  const fromReadme = Object.fromEntries(rows.map((r) => [r[1], r[2]]));
  for (const [file, [code]] of Object.entries(expected)) assert.equal(fromReadme[file], code, file);
  assert.equal(fromReadme['missing-image.cm'], 'ASS001');
});

for (const [file, [code, line, column]] of Object.entries(expected)) {
  test(`errors/${file} gives ${code} at ${line}:${column}`, { skip }, () => {
    const c = compile(readFileSync(path.join(exDir, 'errors', file), 'utf8'));
    assert.equal(c.ok, false);
    const first = c.diagnostics.find((d) => d.severity === 'error')!;
    assert.equal(first.code, code);
    assert.equal(first.line, line);
    assert.equal(first.column, column);
    assert.ok(formatJobMessage(first).startsWith(code + ' '));
    assert.ok(formatJobMessage(first).endsWith(`at line ${line}, column ${column}`));
  });
}

test('errors: message details', { skip }, () => {
  const msg = (f: string) => compile(readFileSync(path.join(exDir, 'errors', f), 'utf8')).diagnostics[0]!;
  assert.equal(msg('syntax.cm').message, "syntax error: expected ',' or ')', found 'fill'");
  assert.equal(msg('unknown-ident.cm').message, "unknown identifier 'fgg'; did you mean 'fg'?");
  assert.match(
    msg('unknown-runner.cm').message,
    /^unknown runner version "9\.9\.9" \(available: 0\.0\.1, .*0\.0\.13\)$/,
  );
  assert.equal(msg('extrude-circle.cm').length, 'circle(r: 100px)'.length);
  // missing-image.cm is a valid source: the service (not the language) fails it with ASS001
  const mi = compile(readFileSync(path.join(exDir, 'errors', 'missing-image.cm'), 'utf8'));
  assert.equal(mi.ok, true);
  assert.deepEqual(imagePaths(mi.program!.sceneAt(0).value), ['/img/does-not-exist.jpg']);
});
