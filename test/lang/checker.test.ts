import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, formatJobMessage, check } from '../../src/lang/index.js';
import { codes } from './helpers.js';

const SC = ' scene s() -> Frame { 1 }';
const one = (src: string) => {
  const d = compile(src).diagnostics;
  assert.equal(d.length, 1, JSON.stringify(d));
  return d[0]!;
};

test('TYP002 / UNT001 / UNT002 exact texts and spans (language.md §7.3)', () => {
  let d = one('let name: String = 42;' + SC);
  assert.deepEqual(
    [d.code, d.line, d.column, d.length, d.message],
    ['TYP002', 1, 20, 2, "type mismatch: expected 'String', got a number literal"],
  );
  assert.equal(d.expected, 'String value');
  assert.equal(d.actual, 'number literal');
  d = one('let timeout: Duration = 6deg;' + SC);
  assert.deepEqual(
    [d.code, d.column, d.length, d.message],
    ['UNT001', 25, 4, "unit mismatch: 'Duration' expects Time, got '6deg' (Angle)"],
  );
  d = one('let count: Number = 5ms;' + SC);
  assert.equal(d.message, "unit mismatch: 'Number' expects unitless, got '5ms' (Time)");
  d = one('let t: Duration = 42;' + SC);
  assert.deepEqual(
    [d.code, d.column, d.length, d.message],
    ['UNT002', 19, 2, "missing unit: 'Duration' requires a Time unit (e.g. '42s')"],
  );
  assert.equal(d.repair.summary, "Append a unit suffix from the Time category (suggested: '42s').");
  d = one('let a: Angle = 1_0;' + SC);
  assert.equal(d.message, "missing unit: 'Angle' requires a Angle unit (e.g. '1_0deg')");
  d = one('export e: Tempo = 120hz;' + SC);
  assert.equal(d.message, "unit mismatch: 'Tempo' expects Tempo, got '120hz' (Frequency)");
  assert.deepEqual(
    codes('let a: Color = "x"; let b: Bool = #fff; let c: String = true; let e: Number = oklch(1,2,3);' + SC),
    ['TYP002', 'TYP002', 'TYP002', 'TYP002'],
  );
  // not literals, unknown types, Int integrality: clean
  assert.deepEqual(
    codes(
      'let d: Duration = -5; let e: Duration = (5); let f: Frame = 1; let i: Int = 1.5; let p: Percent = 5%; let q: Duration<Q> = 1s;' +
        SC,
    ),
    [],
  );
  assert.deepEqual(codes('scene s(d: Duration = 6deg) -> F { 1 }'), ['UNT001']);
  assert.deepEqual(codes('let f = |n: Number = 5px| { n };' + SC), ['UNT001']);
});

test('NAM003 with suggestion; stdlib names need no import; glob does not silence', () => {
  let d = one('use std.shapes.*; scene s() -> F { let fg = 1; compose [fgg] }');
  assert.equal(d.code, 'NAM003');
  assert.equal(d.message, "unknown identifier 'fgg'; did you mean 'fg'?");
  assert.match(d.help, /did you mean 'fg'\?/);
  assert.equal(d.repair.id, 'declare-or-import');
  assert.equal(d.fixSafety, 'local-edit');
  assert.deepEqual(
    codes(
      'scene s() -> F { compose [rect(fill: oklch(0.1, 0.2, 3)), render3d(sphere(1), lights: [ambient(1)], camera: camera(distance: 2)), vec3(1,2,3), text.glyph("a"), animate {0s => 1} with {repeat: forever, easing: easing.out_cubic}, image("a").fit(cover), bottom, std.shapes.rect(1)] }',
    ),
    [],
  );
  assert.equal(one('scene s() -> F { let ab = 1; ac }').message, "unknown identifier 'ac'");
  assert.equal(one('scene s() -> F { rectt(1) }').message, "unknown identifier 'rectt'; did you mean 'rect'?");
  assert.equal(
    one('scene s() -> F { let spin = 1; let wobble = 2; [wobbel, spin] }').message,
    "unknown identifier 'wobbel'; did you mean 'wobble'?",
  );
  d = one('scene s() -> F { frobnicate(1) }');
  assert.equal(d.message, "unknown identifier 'frobnicate'");
  // top-level names are visible everywhere, including their own initialiser
  assert.deepEqual(codes('let x = [x, y]; let y = 1;' + SC), []);
  // block self reference and lambda/callable defaults resolved outside
  assert.deepEqual(codes('scene s() -> F { let q = [q]; q }'), ['NAM003']);
  assert.deepEqual(codes('scene s(a: N = 1, b: N = a) -> F { b }'), ['NAM003']);
  // match binding scoped to its arm; record field names and method names never resolved
  assert.deepEqual(codes('scene s() -> F { match 1 { k => k, _ => k } }'), ['NAM003']);
  assert.deepEqual(codes('scene s() -> F { {zz: 1}.zz.ww(qq: 1) }'), []);
  // use adds names
  assert.deepEqual(codes('use foo.bar; use a.b as c; scene s() -> F { [bar, c] }'), []);
});

test('NAM004 forward reference, also from inside a lambda', () => {
  const d = one('scene s() -> F {\n  let a = b;\n  let b = 1;\n  a\n}');
  assert.deepEqual(
    [d.code, d.line, d.column, d.message, d.actual],
    ['NAM004', 2, 11, "forward reference to 'b'", "'b' is declared later in this block at line 3 column 7"],
  );
  assert.deepEqual(codes('scene s() -> F { let f = |x: N| { z }; let z = 1; f(1) }'), ['NAM004']);
});

test('NAM005 and NAM006', () => {
  let d = one('component c(a: Number, a: Number) -> Frame { a }' + SC);
  assert.deepEqual(
    [d.code, d.column, d.message, d.actual],
    ['NAM006', 24, "duplicate parameter name 'a'", "name 'a' already used at line 1 column 13"],
  );
  d = one('use std.text; use foo.text;' + SC);
  assert.deepEqual(
    [d.code, d.column, d.length, d.actual],
    ['NAM005', 15, 13, "name 'text' previously declared at line 1 column 1"],
  );
  assert.deepEqual(codes('scene a() -> F { 1 } let a = 2;'), ['NAM005']);
});

test('NAM007 and LWR001', () => {
  let d = one('scene s() -> F { extrude(circle(radius: 40px)) }');
  assert.deepEqual(
    [d.code, d.column, d.length, d.message],
    ['NAM007', 26, 20, "no 3D shape translator for 'circle' inside extrude(...)"],
  );
  assert.deepEqual(
    codes(
      'let p = 1; scene s() -> F { [extrude(svg("x")), extrude(text.glyph("a")), extrude(p), extrude(depth: 1px)] }',
    ),
    ['NAM007'],
  );
  d = one('scene s() -> F { path(points: [vec2(0,0), vec2(40,0)]) }');
  assert.deepEqual(
    [d.code, d.column, d.message],
    ['LWR001', 18, 'a path needs at least 3 points to extrude into a solid'],
  );
  assert.equal(
    one('scene s() -> F { path(points: [vec2(0,0), vec2(1,0), vec2(1,1)], closed: false) }').message,
    'an open path (closed: false) has no cap face to extrude',
  );
  assert.deepEqual(codes('let p = 1; scene s() -> F { [path([1, 2]), path(points: p), path(points: [1,2,3])] }'), [
    'LWR001',
  ]);
});

test('runner pin: RUN001 for unknown versions, RUN002 for newer functions', () => {
  let d = one('runner "9.9.9";' + SC);
  assert.equal(d.code, 'RUN001');
  assert.equal(
    d.message,
    'unknown runner version "9.9.9" (available: 0.0.1, 0.0.2, 0.0.3, 0.0.5, 0.0.6, 0.0.7, 0.0.10, 0.0.12, 0.0.13)',
  );
  assert.deepEqual([d.line, d.column], [1, 8]);
  assert.deepEqual(codes('runner "banana";' + SC), ['RUN001']);
  assert.deepEqual(codes('runner "0.1.0-beta";' + SC), ['RUN001']);
  d = one('runner "0.0.3";\nscene s() -> F { svg("<svg/>") }');
  assert.deepEqual(
    [d.code, d.message, d.line, d.column, d.length],
    ['RUN002', 'svg() needs runner 0.0.5 or later; this source pins 0.0.3', 2, 18, 3],
  );
  assert.deepEqual(
    codes(
      'runner "0.0.1"; scene s() -> F { [metaballs([blob(at: 1)]), path(points: [1,2,3]), point(at: 1), spotlight(1), gradient(top: 1), bloom(1), vectorize(image("a"))] }',
    ),
    ['RUN002', 'RUN002', 'RUN002', 'RUN002', 'RUN002', 'RUN002', 'RUN002', 'RUN002'],
  );
  assert.deepEqual(codes('runner "0.0.3"; scene s() -> F { """raw""" }'), ['RUN002']);
  assert.deepEqual(codes('runner "0.0.5"; scene s() -> F { [svg("""x"""), gradient(top: 1)] }'), []);
  // a local name shadows the library function
  assert.deepEqual(codes('runner "0.0.1"; let svg = |x: N| { x }; scene s() -> F { svg(1) }'), []);
  assert.equal(compile(SC).runner, '0.0.13');
  assert.equal(compile('runner "0.0.2";' + SC).program!.runner, '0.0.2');
});

test('diagnostic shape, envelope and job message', () => {
  const env = check('let name: String = 42;' + SC);
  assert.equal(env.schemaVersion, 1);
  assert.equal(env.ok, false);
  const d = env.diagnostics[0]!;
  assert.deepEqual(Object.keys(d), [
    'severity',
    'code',
    'message',
    'line',
    'column',
    'length',
    'expected',
    'actual',
    'help',
    'fixSafety',
    'repair',
    'related',
  ]);
  assert.equal(
    formatJobMessage(d),
    "TYP002 type mismatch: expected 'String', got a number literal at line 1, column 20",
  );
  assert.deepEqual(check(SC), { schemaVersion: 1, ok: true, diagnostics: [] });
});
