import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lex } from '../../src/lang/lexer.js';
import { compile } from '../../src/lang/index.js';

const kinds = (s: string) =>
  lex(s).map((t) => (t.kind === 'number' ? `num:${t.digits}|${t.unit}` : `${t.kind}:${t.text}`));

test('unit suffix is taken even when letters follow (10pxx, 2sin, 10rads, 10bar, 10m)', () => {
  assert.deepEqual(kinds('10pxx'), ['num:10|px', 'ident:x', 'eof:']);
  assert.deepEqual(kinds('2sin'), ['num:2|s', 'ident:in', 'eof:']);
  assert.deepEqual(kinds('10rads'), ['num:10|rad', 'ident:s', 'eof:']);
  assert.deepEqual(kinds('10bar'), ['num:10|', 'ident:bar', 'eof:']);
  assert.deepEqual(kinds('10m'), ['num:10|', 'ident:m', 'eof:']);
  assert.deepEqual(kinds('500ms 3khz 2beats 1bars 120bpm 0.5turn 5us 7ns 2hz'), [
    'num:500|ms',
    'num:3|khz',
    'num:2|beats',
    'num:1|bars',
    'num:120|bpm',
    'num:0.5|turn',
    'num:5|us',
    'num:7|ns',
    'num:2|hz',
    'eof:',
  ]);
});

test('5%3 is a percent number then 3; x%3 is a remainder', () => {
  assert.deepEqual(kinds('5%3'), ['num:5|%', 'num:3|', 'eof:']);
  assert.deepEqual(kinds('x%3'), ['ident:x', 'punct:%', 'num:3|', 'eof:']);
  assert.deepEqual(
    compile('let a = 5%3; scene s() -> F { a }').diagnostics.map((d) => d.code),
    ['PAR100'],
  );
});

test('underscores and fractions', () => {
  assert.deepEqual(kinds('1_000 1__2 1_ 1_000.000_1px'), [
    'num:1_000|',
    'num:1__2|',
    'num:1_|',
    'num:1_000.000_1|px',
    'eof:',
  ]);
  assert.deepEqual(kinds('1.abs'), ['num:1|', 'punct:.', 'ident:abs', 'eof:']);
  for (const bad of ['.5', '1.', '3e5', '0x10', '2Hz', '10 px'])
    assert.equal(compile(`let a = ${bad}; scene s() -> F { a }`).diagnostics[0]?.code, 'PAR100', bad);
});

test('|| and | tokens; the parser gives || its contextual meaning', () => {
  assert.deepEqual(kinds('||'), ['punct:||', 'eof:']);
  const ok = compile('let f = || { 1 }; let g = | | { 2 }; scene s() -> F { if true || false { f() } else { g() } }');
  assert.equal(ok.ok, true, JSON.stringify(ok.diagnostics));
  assert.deepEqual(ok.program!.sceneAt(0).value, { kind: 'number', value: 1, unit: null });
  assert.equal(compile('scene s() -> F { 1 | 2 }').diagnostics[0]!.code, 'PAR100');
});

test('>= closing type arguments splits into > and =', () => {
  const c = compile('let x: List<Number>= 1; scene s() -> F { x }');
  assert.equal(c.ok, true, JSON.stringify(c.diagnostics));
  assert.equal(compile('let x: Map<A, B<C>>= 1; scene s() -> F { x }').ok, true);
});

test('BOM at the start is ignored; elsewhere it is an error', () => {
  assert.equal(compile('\uFEFFscene s() -> F { 1 }').ok, true);
  const d = compile('scene s() -> F { \uFEFF1 }').diagnostics[0]!;
  assert.equal(d.code, 'PAR100');
  assert.equal(d.column, 18);
});

test('non-ASCII only inside strings and comments; byte columns', () => {
  assert.equal(compile('// café\nscene s() -> F { "café" }').ok, true);
  const d = compile('let é = 1;').diagnostics[0]!;
  assert.equal(d.code, 'PAR100');
  assert.equal(d.column, 5);
  // a 2-byte character before the error shifts the byte column by 2
  const e = compile('let a = "é"; let b = ;').diagnostics[0]!;
  assert.equal(e.column, 23);
});

test('raw strings: first closing """ wins, body keeps quotes and backslashes', () => {
  const t = lex('"""a"b""c\\n"""');
  assert.equal(t[0]!.kind, 'string');
  assert.equal(t[0]!.text, '"""a"b""c\\n"""');
  assert.equal(lex('""""""')[0]!.text, '""""""');
  // """a"""" leaves an unterminated normal string
  assert.equal(compile('let a = """a""""; scene s() -> F { a }').diagnostics[0]!.code, 'PAR100');
  const v = compile('scene s() -> F { """x"y""" }').program!.sceneAt(0).value;
  assert.deepEqual(v, { kind: 'string', raw: '"""x"y"""' });
});

test('normal strings: escapes are lexical only; raw newlines allowed; backslash-newline is an error', () => {
  const v = compile('scene s() -> F { "a\\"b" }').program!.sceneAt(0).value;
  assert.deepEqual(v, { kind: 'string', raw: '"a\\"b"' });
  assert.equal(compile('scene s() -> F { "a\nb" }').ok, true);
  assert.equal(compile('scene s() -> F { "a\\\nb" }').diagnostics[0]!.code, 'PAR100');
  assert.equal(compile('scene s() -> F { "abc }').diagnostics[0]!.code, 'PAR100');
});

test('comments: line, block, not nestable, unterminated', () => {
  assert.equal(compile('/* a */ // b\nscene s() -> F { compose [ /* c */ 1, // d\n 2 ] }').ok, true);
  assert.equal(compile('/* a /* b */ c */ scene s() -> F { 1 }').diagnostics[0]!.code, 'PAR100');
  const d = compile('scene s() -> F { 1 } /* open').diagnostics[0]!;
  assert.equal(d.code, 'PAR100');
  assert.match(d.message, /unterminated block comment/);
});

test('hex colours: longest match, # alone is an error', () => {
  assert.deepEqual(kinds('#fffz'), ['hex:#fff', 'ident:z', 'eof:']);
  assert.equal(compile('scene s() -> F { # fff }').diagnostics[0]!.code, 'PAR100');
  assert.deepEqual(compile('scene s() -> F { #AbC123 }').program!.sceneAt(0).value, {
    kind: 'color',
    form: 'hex',
    digits: 'AbC123',
  });
});
