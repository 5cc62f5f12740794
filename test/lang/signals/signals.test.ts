import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, type Value } from '../../../src/lang/index.js';
import { evalDiags, evalExpr, numberOf } from '../helpers.js';

const N = (value: number, unit: string | null = null): Value => ({ kind: 'number', value, unit }) as Value;
const NIL: Value = { kind: 'nil' };
const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

/**
 * The rendered value at t of a source whose scene returns `x`, asserting that it compiles with no error (an argument
 * of the wrong type is a library warning, LIB004, test/lang/library-warnings.test.ts; these sources use some on purpose).
 */
function letX(expr: string, t = 0): Value {
  const c = compile(`let x = ${expr};\nscene s() -> F { x }`);
  assert.deepEqual(
    c.diagnostics.filter((d) => d.code !== 'LIB004'),
    [],
    expr,
  );
  const r = c.program!.sceneAt(t);
  assert.deepEqual(r.diagnostics, [], expr);
  return r.value;
}

test('a missing field of a time signal is nil, not an error (stdlib.md §4.8 field_of)', () => {
  const bounce = 'bounce(height: 100px, period: 1s, floor: 0px)';
  for (const t of [0, 0.25, 1.5]) {
    assert.deepEqual(letX(`${bounce}.positon`, t), NIL);
    assert.deepEqual(letX('animate { 0s => 0deg, 2s => 90deg }.foo', t), NIL);
    assert.deepEqual(letX('wave(amplitude: 10px, period: 2s).x', t), NIL);
    assert.deepEqual(letX('on_event([0s], decay: 1s, peak: 1).y', t), NIL);
    assert.deepEqual(letX('noise(seed: 1, period: 1s).z', t), NIL);
  }
  // through a binding, a parameter and a lambda, as the deferred node would travel in the reference
  assert.deepEqual(evalExpr('b.nope', 0, `let b = ${bounce};`), NIL);
  assert.deepEqual(evalExpr('f(w)', 0, 'let w = wave(amplitude: 1, period: 4s); let f = |v: Number| { v.x };'), NIL);
  // what is read from a signal is deferred too: a field of the position or of the impacts is nil
  assert.deepEqual(letX(`${bounce}.position.x`, 0.25), NIL);
  assert.deepEqual(letX(`${bounce}.impacts.first`, 0.25), NIL);
  // many signal values in one frame (the marks move from a short list to a set)
  const waves = Array.from({ length: 40 }, (_, i) => `wave(amplitude: ${i}px, period: 1s)`).join(', ');
  assert.deepEqual(evalExpr('[ws[0].x, ws[39].x, ws[39] * 1]', 0.25, `let ws = [${waves}];`), {
    kind: 'array',
    elems: [NIL, NIL, N(39, 'px')],
  });
  assert.equal(evalDiags('{a: ws[39]}.b', 0.25, `let ws = [${waves}];`)[0]!.message, "record has no field 'b'");
});

test('a field that exists is the field value at t', () => {
  const bounce = 'bounce(height: 100px, period: 1s, floor: 0px)';
  assert.deepEqual(letX(`${bounce}.position`, 0.5), N(100, 'px'));
  assert.deepEqual(evalExpr('b.position', 0.25, `let b = ${bounce};`), N(75, 'px'));
  // an animate whose keyframes are records: the held record's first field of that name
  const rec = 'animate { 0s => {a: 1, a: 5}, 1s => {a: 2} }';
  assert.deepEqual(letX(`${rec}.a`, 0.5), N(1));
  assert.deepEqual(letX(`${rec}.a`, 1), N(2));
  assert.deepEqual(letX(`${rec}.b`, 0.5), NIL);
  // the signal's value itself is unchanged, and still a number for arithmetic
  close(numberOf(evalExpr('wave(amplitude: 10px, period: 2s) * 2', 0.5)), 20);
});

test('field access on ordinary values still fails with EVL002 at the field expression', () => {
  const d = evalDiags('{a: 1}.b'); // line 2, after `scene s() -> Frame { `
  assert.deepEqual(
    d.map((x) => [x.code, x.message, x.line, x.column, x.length]),
    [['EVL002', "record has no field 'b'", 2, 22, 8]],
  );
  assert.equal(evalDiags('(1).x')[0]!.message, 'field access expected record, got number');
  // a value computed from a signal is an ordinary number again
  assert.equal(
    evalDiags('(wave(amplitude: 1, period: 4s) * 2).x', 1)[0]!.message,
    'field access expected record, got number',
  );
  // a record that an animate holds is still an ordinary record where it is bound
  const held = evalDiags('[animate { 0s => r }, r.b]', 0, 'let r = {a: 1};');
  assert.deepEqual(
    held.map((x) => [x.code, x.message]),
    [['EVL002', "record has no field 'b'"]],
  );
  // ... and so is a record read from a held one
  const read = evalDiags('[animate { 0s => r }.a.nope, q.nope]', 0, 'let q = {z: 1}; let r = {a: q};');
  assert.deepEqual(
    read.map((x) => [x.code, x.message, x.column]),
    [['EVL002', "record has no field 'nope'", 51]],
  );
});

test('a lambda held by an animate stays callable', () => {
  assert.deepEqual(evalExpr('animate { 0s => f }(4)', 0, 'let f = |n: Number| { n * 2 };'), N(8));
});

test('a repeated named argument of wave, bounce or on_event: the last numeric one counts (stdlib.md §6.0)', () => {
  assert.deepEqual(letX('wave(amplitude: 10px, period: 2s, amplitude: 20px)', 1.5), N(-20, 'px'));
  close(numberOf(letX('wave(amplitude: 10px, period: 1s, period: 4s)', 1)), 10);
  // non-numbers are skipped, not taken
  close(numberOf(letX('wave(amplitude: 10px, period: 2s, amplitude: "loud")', 0.5)), 10);
  assert.equal(letX('wave(amplitude: "loud", period: 2s)', 0.5).kind, 'constructed');

  const pos = (args: string, t: number) => letX(`bounce(${args}).position`, t);
  assert.deepEqual(pos('height: 100px, period: 1s, floor: 0px, height: 200px', 0.5), N(200, 'px'));
  assert.deepEqual(pos('height: 100px, period: 1s, floor: 0px, floor: 50px', 0), N(50, 'px'));
  assert.deepEqual(pos('height: 100px, period: 4s, floor: 0px, period: 1s', 0.5), N(100, 'px'));
  assert.deepEqual(pos('height: 100px, period: 1s, floor: 0px, floor: true', 0), N(0, 'px'));

  assert.deepEqual(letX('on_event([0s], decay: 1s, peak: 1, peak: 2px)', 0), N(2, 'px'));
  close(numberOf(letX('on_event([0s], decay: 1s, peak: 1, decay: 2s)', 2)), Math.exp(-1));
  close(numberOf(letX('on_event([0s], decay: 2s, peak: 1, decay: "slow")', 2)), Math.exp(-1));
  // events: the last named one (it must be an array), which wins over a positional one
  assert.deepEqual(letX('on_event(events: [5s], events: [0s], decay: 1s, peak: 1)', 0), N(1));
  assert.deepEqual(letX('on_event([0s], events: [5s], decay: 1s, peak: 1)', 0), N(0));
});

test('a time signal as a parameter of another signal is resolved first, at the same t (docs/compatibility.md)', () => {
  assert.deepEqual(letX('wave(amplitude: animate { 0s => 0px, 2s => 20px }, period: 4s)', 1), N(10, 'px'));
  // no phase accumulation: A·sin(2πt / P(t)), here P(1) = 6 s
  close(
    numberOf(letX('wave(amplitude: 10px, period: animate { 0s => 4s, 2s => 8s })', 1)),
    10 * Math.sin((2 * Math.PI) / 6),
  );
  close(
    numberOf(letX('bounce(height: wave(amplitude: 100px, period: 4s), period: 1s, floor: 0px).position', 0.5)),
    100 * Math.sin(Math.PI / 4),
  );
  close(numberOf(letX('on_event([0s], decay: animate { 0s => 1s, 1s => 2s }, peak: 1)', 1)), Math.exp(-0.5));
  close(numberOf(letX('animate { 0s => 0, wave(amplitude: 2s, period: 8s) => 10 }', 1)), 10 / Math.SQRT2);
  // with a repeated argument the animated (last) one counts
  assert.deepEqual(
    letX('wave(amplitude: 5px, period: 4s, amplitude: animate { 0s => 0px, 2s => 20px })', 1),
    N(10, 'px'),
  );
});
