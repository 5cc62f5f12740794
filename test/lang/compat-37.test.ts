// Issue 37: a source cmotion renders renders here. What the checker and evaluator make of the two refused kinds of
// source (an unknown name given as an argument under a glob import; a lambda default that reads an earlier
// parameter), through compile() and check() (the POST /v1/check envelope). The drawing is checked with real
// Chromium in test/viewer/compat-37.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, compile } from '../../src/lang/index.js';

const GLOB = 'use std.shapes.*;\nuse std.mesh3d.*;\nuse std.scene3d.*;\n';
const pivotScene = (anchor: string) =>
  `scene s() -> Frame {\n  compose [render3d(sphere(radius: 100px).pivot(${anchor}))]\n}\n`;

test('an unknown name as an argument under a glob import is a NAM003 warning with its suggestion; the source compiles', () => {
  const c = compile(GLOB + pivotScene('middle'));
  assert.equal(c.ok, true, JSON.stringify(c.diagnostics));
  assert.deepEqual(
    c.diagnostics.map((d) => [d.severity, d.code, d.message, d.line, d.column]),
    [['warning', 'NAM003', "unknown identifier 'middle'", 5, 49]],
  );
  // the inert value cmotion makes of it (language.md §4.4): a staged value named after it, with no fields
  const v = JSON.stringify(c.program!.sceneAt(0).value);
  assert.match(
    v,
    /"name":"pivot","fields":\[\{"name":"","value":\{"kind":"constructed","name":"sphere".*\{"name":"","value":\{"kind":"constructed","name":"middle","fields":\[\]\}\}/,
  );
  // the envelope of /v1/check: ok, and the warning carries the "did you mean"
  const e = check(GLOB + pivotScene('botom'));
  assert.equal(e.ok, true);
  assert.equal(e.diagnostics.length, 1);
  assert.equal(e.diagnostics[0]!.severity, 'warning');
  assert.equal(e.diagnostics[0]!.message, "unknown identifier 'botom'; did you mean 'bottom'?");
  assert.match(e.diagnostics[0]!.help, /^did you mean 'bottom'\? /);
  // named arguments and call arguments alike; a forward name as an argument too (NAM004)
  const named = compile(`${GLOB}scene s() -> Frame {\n  rect(width: 10px, fill: crimsn)\n}\n`);
  assert.equal(named.ok, true);
  assert.deepEqual(
    named.diagnostics.map((d) => [d.severity, d.code]),
    [['warning', 'NAM003']],
  );
  const fwd = compile(
    `${GLOB}scene s() -> Frame {\n  let a = rect(width: 10px, fill: later);\n  let later = #ff0000;\n  a\n}\n`,
  );
  assert.equal(fwd.ok, true);
  assert.deepEqual(
    fwd.diagnostics.map((d) => [d.severity, d.code]),
    [['warning', 'NAM004']],
  );
});

test("without a glob import cmotion's own NAM003 stays an error, and so does a name that would be drawn or called", () => {
  const none = compile(pivotScene('middle'));
  assert.equal(none.ok, false);
  assert.deepEqual(
    none.diagnostics.map((d) => [d.severity, d.code]),
    [['error', 'NAM003']],
  );
  // the shared examples' errors/ contract: an unknown layer, an unknown function and a forward layer fail the job
  for (const body of [
    'compose [fgg]',
    'frobnicate(width: 3px)',
    'let a = bg; let bg = rect(width: 1px); compose [a]',
  ]) {
    const c = compile(`${GLOB}scene s() -> Frame { ${body} }`);
    assert.equal(c.ok, false, body);
    assert.equal(c.diagnostics[0]!.severity, 'error', body);
  }
});

test('a lambda default reads the parameters before it, in the checker and the evaluator (language.md §6.1, §9.2)', () => {
  const src = `${GLOB}scene s() -> Frame {
  let tile = |i: Number, col: Number = i % 4| -> Layer { rect(width: 10px * col, height: 10px * i) };
  compose [tile(7), tile(2, col: 9)]
}
`;
  const c = compile(src);
  assert.deepEqual(c.diagnostics, []);
  assert.equal(c.ok, true);
  const v = c.program!.sceneAt(0).value;
  const layers = v.kind === 'constructed' && v.fields[0]!.value;
  assert.ok(layers && layers.kind === 'array');
  const widths = layers.elems.map((l) =>
    l.kind === 'constructed' && l.fields[0]!.value.kind === 'number' ? l.fields[0]!.value.value : NaN,
  );
  assert.deepEqual(widths, [30, 90]); // 7 % 4 = 3; a given argument wins over the default
  // a default reads only earlier parameters: a later one is unknown there (no glob import: an error)
  assert.deepEqual(
    compile('scene s() -> Frame { let f = |a: Number = b, b: Number = 1| { a }; f() }').diagnostics.map((d) => d.code),
    ['NAM003'],
  );
  // a component's or scene's defaults keep cmotion's rule: resolved in the top scope (NAM003, language.md §6.1)
  const callable = compile('scene s(a: Number = 1, b: Number = a) -> Frame { b }');
  assert.deepEqual(
    callable.diagnostics.map((d) => [d.severity, d.code, d.message]),
    [['error', 'NAM003', "unknown identifier 'a'"]],
  );
});

test('RUN002 (a function or raw string newer than the pin) is a warning: the reference renders every pin alike', () => {
  const c = compile('runner "0.0.3";\nscene s() -> Frame { svg("""<svg/>""") }');
  assert.equal(c.ok, true);
  assert.deepEqual(
    c.diagnostics.map((d) => [d.severity, d.code]),
    [
      ['warning', 'RUN002'],
      ['warning', 'RUN002'],
    ],
  );
});
