import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../src/lang/index.js';
import { parse } from '../../src/lang/parser.js';
import { codes } from './helpers.js';

const SC = 'scene s() -> Frame { 1 }';

test('syntax accepted by the grammar (language.md §2, §10)', () => {
  const good = [
    'runner "0.0.5"; use std.shapes.*; use std . text; use std.text as t2; ' + SC,
    '// c\nrunner """0.0.5""";\n' + SC,
    'let if = 1; ' + SC,
    'scene s(if: Number = 1, size: Size = size(1px, 2px),) -> {a: A, b: B,} { 1 }',
    'let f = |x: Number = 1, y: (A, B), z: (A) -> (B) -> C,| -> Number { x }; ' + SC,
    'scene s() -> Frame { |x: N| { x }(1) }',
    'scene s() -> Frame { if true { 1 } else if false { 2 } else { 3 } + 3 }',
    'scene s() -> Frame { match 1 { 1 => 2, x => x, "a" => 1, oklch(1, 2, 3) => 4, _ => 5, } }',
    'scene s() -> Frame { animate { 0s => 1, 1s => 2, } with { easing: easing.out_cubic, if: 1, } }',
    'scene s() -> Frame { compose [a].rotate(x: 1deg) }',
    'scene s() -> Frame { compose [] }',
    'scene s() -> Frame { { let a = 1; { a: a, if: 2 } } }',
    'scene s() -> Frame { {{ a: 1 }} }',
    'scene s() -> Frame { f(scene: 1, a: 2,) }',
    'scene s() -> Frame { -2 ** 2 + 2 ** -1 }',
    'scene s() -> Frame { -x.y(1)[0] }',
    'scene s() -> Frame { a.scene.if.match }',
    'let a = b\n(c);' + SC,
    'export e: Number = 1; component c() -> Frame { 1 } filter f() -> Frame { 2 } ' + SC,
    'use std.if as match; ' + SC,
    'scene s() -> Frame { let scene = 1; scene }',
  ];
  for (const src of good) {
    const p = parse(src);
    assert.equal(p.ok, true, `${src}: ${p.ok ? '' : p.error.message}`);
  }
});

test('syntax errors (language.md §10)', () => {
  const bad = [
    'let x = 1',
    'use std.shapes.*; runner "0.0.1"; ' + SC,
    'runner "0.0.1"; runner "0.0.1"; ' + SC,
    'runner 1; ' + SC,
    "runner '0.0.1'; " + SC,
    SC + ' use std.text;',
    'scene s() -> F { {} }',
    'scene s() -> F { match y {} }',
    'scene s() -> F { animate { 0s => 1 } with {} }',
    'let y = if; ' + SC,
    'scene s() -> F { f(if: 1) }',
    'scene s() -> F { --x }',
    'scene s() -> F { !!x }',
    'scene s() -> F { (1, 2) }',
    'scene s() -> F { |x| { x } }',
    'scene s() -> F { |x: N| x }',
    'scene s() -> F { if c { 1 } else 2 }',
    'scene s() -> F { match 1 { -1 => 2 } }',
    'scene s() -> F { oklch(1, 2) }',
    'scene s() -> F { oklch(l: 1, 2, 3) }',
    'scene s() -> F { x.0 }',
    'scene s() -> F { f(,) }',
    'scene s() -> F { 1 };',
    'let x: Map<> = 1; ' + SC,
    'let x: (A) = 1; ' + SC,
    'let x: (A, B,) -> C = 1; ' + SC,
    'export e = 1; ' + SC,
    'foo(); ' + SC,
    'scene s() -> F { { let } }',
    'scene s() -> F { {if: 1} }',
    'use std.*.foo; ' + SC,
    'use *; ' + SC,
  ];
  for (const src of bad) assert.deepEqual(codes(src), ['PAR100'], src);
});

test('PAR100 points at the real error with expected/found wording', () => {
  const d = compile('scene s() -> Frame {\n  rect(width: 300px height: 2px)\n}').diagnostics[0]!;
  assert.equal(d.code, 'PAR100');
  assert.equal(d.message, "syntax error: expected ',' or ')', found 'height'");
  assert.equal(d.line, 2);
  assert.equal(d.column, 21);
  assert.equal(d.length, 6); // the offending token
  assert.equal(d.repair.id, 'fix-syntax');
  const e = compile('let x = 1').diagnostics[0]!;
  assert.equal(e.message, "syntax error: expected ';', found end of input");
});

test('precedence and associativity', () => {
  const v = (src: string) => compile(`scene s() -> F { ${src} }`).program!.sceneAt(0).value;
  assert.deepEqual(v('2 ** 3 ** 2'), { kind: 'number', value: 512, unit: null });
  assert.deepEqual(v('-2 ** 2'), { kind: 'number', value: 4, unit: null });
  assert.deepEqual(v('1 + 2 * 3 - 4 / 2'), { kind: 'number', value: 5, unit: null });
  assert.deepEqual(v('10 - 3 - 2'), { kind: 'number', value: 5, unit: null });
  assert.deepEqual(v('1 < 2 == true'), { kind: 'bool', value: true });
  assert.deepEqual(v('true || false && false'), { kind: 'bool', value: true });
});

test('hostile nesting is PAR101, quickly, without overflowing the stack', () => {
  for (const src of [
    'let a = ' + '('.repeat(10000) + '1' + ')'.repeat(10000) + ';',
    'let a = ' + '['.repeat(65536),
    '{'.repeat(65536),
    'let a = ' + '-('.repeat(20000),
    'let a = 1' + ' + 1'.repeat(20000) + ';',
    'let a = x' + '.y'.repeat(20000) + ';',
    'let x: ' + 'List<'.repeat(20000),
  ]) {
    const t0 = performance.now();
    const c = compile(src);
    assert.ok(performance.now() - t0 < 1000);
    assert.equal(c.ok, false);
    assert.ok(['PAR101', 'PAR100'].includes(c.diagnostics[0]!.code), c.diagnostics[0]!.code);
  }
  assert.equal(compile('let a = ' + '('.repeat(10000) + '1' + ')'.repeat(10000) + ';').diagnostics[0]!.code, 'PAR101');
});
