import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, type Value } from '../../src/lang/index.js';
import { EASINGS, noise } from '../../src/lang/signals/index.js';
import { evalDiags, evalExpr, numberOf } from './helpers.js';

const N = (value: number, unit: string | null = null): Value => ({ kind: 'number', value, unit }) as Value;
const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);
const firstCode = (expr: string, t = 0, prelude = '') => evalDiags(expr, t, prelude).map((d) => d.code);

test('arithmetic and unit rules (stdlib.md §3.7, compatible units convert)', () => {
  assert.deepEqual(evalExpr('2s * 3'), N(6, 's'));
  assert.deepEqual(evalExpr('2 * 10px'), N(20, 'px'));
  assert.deepEqual(evalExpr('2s * 3s'), N(6, 's'));
  assert.deepEqual(evalExpr('1s / 500ms'), N(0.002, 's'));
  assert.deepEqual(evalExpr('90deg + 10deg'), N(100, 'deg'));
  assert.deepEqual(evalExpr('1s + 500ms'), N(1.5, 's'));
  assert.deepEqual(evalExpr('500ms + 1s'), N(1500, 'ms'));
  assert.deepEqual(evalExpr('2s - 500ms'), N(1.5, 's'));
  close(numberOf(evalExpr('180deg + 1rad')), 180 + 180 / Math.PI);
  assert.deepEqual(evalExpr('1turn - 180deg'), N(0.5, 'turn'));
  assert.deepEqual(evalExpr('1khz + 500hz'), N(1.5, 'khz'));
  assert.deepEqual(evalExpr('50% + 5%'), N(55, 'percent'));
  assert.deepEqual(evalExpr('2 ** 3'), N(8));
  assert.deepEqual(evalExpr('2 ** 2px'), N(4, 'px'));
  assert.deepEqual(evalExpr('7 % 3'), N(1));
  assert.deepEqual(evalExpr('-7 % 3'), N(-1));
  assert.deepEqual(evalExpr('7.5 % 0'), N(0.5));
  assert.deepEqual(evalExpr('5 / 0'), N(0));
  assert.deepEqual(evalExpr('-(3px)'), N(-3, 'px'));
  assert.deepEqual(evalExpr('1s < 2000ms'), { kind: 'bool', value: true });
  assert.deepEqual(evalExpr('[1 <= 1, 2 > 1, 1 >= 2]'), {
    kind: 'array',
    elems: [
      { kind: 'bool', value: true },
      { kind: 'bool', value: true },
      { kind: 'bool', value: false },
    ],
  });
  const d = evalDiags('3px + 4');
  assert.equal(d[0]!.code, 'EVL002');
  assert.equal(d[0]!.message, "operator '+' mixes units: px vs <unitless>");
  assert.equal(evalDiags('1s + 1deg')[0]!.message, "operator '+' mixes units: s vs deg");
  assert.equal(evalDiags('1s < 1px')[0]!.message, "operator '<' mixes units: s vs px");
  assert.equal(evalDiags('1 + "a"')[0]!.message, 'arithmetic expected number, got string');
  assert.equal(evalDiags('1 < true')[0]!.message, 'comparison expected number, got bool');
  assert.equal(evalDiags('1 && true')[0]!.message, '&& expected bool, got number');
  assert.equal(evalDiags('true || 1')[0]!.message, '|| expected bool, got number');
  assert.equal(evalDiags('-"a"')[0]!.message, 'unary - expected number, got string');
  assert.equal(evalDiags('!1')[0]!.message, 'unary ! expected bool, got number');
  assert.equal(evalDiags('vec3(1,2,3) + 1')[0]!.message, 'arithmetic expected number, got constructed');
  assert.deepEqual(evalExpr('!false'), { kind: 'bool', value: true });
  assert.deepEqual(evalExpr('true && false'), { kind: 'bool', value: false });
});

test('both sides of && and || are evaluated', () => {
  assert.deepEqual(firstCode('false && (1 + "a" == 1)'), ['EVL002']);
});

test('non-finite results are EVL005', () => {
  assert.deepEqual(firstCode('10 ** 400'), ['EVL005']);
  assert.deepEqual(firstCode('(0 - 1) ** 0.5'), ['EVL005']);
  const c = compile('scene s() -> F { 10 ** 400 }');
  assert.equal(c.ok, false);
  assert.match(c.diagnostics[0]!.message, /not a finite number \(Infinity\)/);
});

test('equality (stdlib.md §3.6) with unit conversion', () => {
  const b = (e: string) => (evalExpr(e) as { value: boolean }).value;
  assert.equal(b('1 == 1'), true);
  assert.equal(b('2 == 2px'), false);
  assert.equal(b('1s == 1000ms'), true);
  assert.equal(b('"a" == "a"'), true);
  assert.equal(b('"a" == """a"""'), false);
  assert.equal(b('#fff == #fff'), false);
  assert.equal(b('[1] == [1]'), false);
  assert.equal(b('true != false'), true);
  assert.equal(b('1 == "1"'), false);
  assert.equal(b('if false { 1 } == if false { 2 }'), true);
  // exact comparison after a floating-point conversion (docs/compatibility.md)
  assert.equal(b('0.7s == 700ms'), false);
  assert.equal(b('90deg == 0.25turn'), true);
});

test('match literal patterns convert units like == (docs/compatibility.md)', () => {
  const m = (subject: string, pattern: string) => evalExpr(`match ${subject} { ${pattern} => "a", _ => "b" }`);
  const A = { kind: 'string', raw: '"a"' };
  const B = { kind: 'string', raw: '"b"' };
  assert.deepEqual(m('1s', '1000ms'), A);
  assert.deepEqual(m('1000ms', '1s'), A);
  assert.deepEqual(m('1khz', '1000hz'), A);
  assert.deepEqual(m('2', '2px'), B);
  assert.deepEqual(m('2s', '2'), B);
  assert.deepEqual(m('0.7s', '700ms'), B);
  assert.deepEqual(
    evalDiags('match 1s { 1deg => "a" }').map((d) => [d.code, d.message]),
    [['EVL002', "match has no arm for subject of kind 'number'"]],
  );
});

test('if, match, blocks, records, arrays, indexing', () => {
  assert.deepEqual(evalExpr('if 1 < 2 { "y" } else { "n" }'), { kind: 'string', raw: '"y"' });
  assert.deepEqual(evalExpr('if false { 1 }'), { kind: 'nil' });
  assert.equal(evalDiags('if 1 { 2 }')[0]!.message, 'if condition expected bool, got number');
  assert.deepEqual(evalExpr('match 2 { 1 => "a", 2 => "b", _ => "c" }'), { kind: 'string', raw: '"b"' });
  assert.deepEqual(evalExpr('match 5 { 1 => 0, n => n * 2 }'), N(10));
  assert.equal(evalDiags('match 5 { 1 => 0 }')[0]!.message, "match has no arm for subject of kind 'number'");
  assert.deepEqual(evalExpr('{ let a = 1; let a = a + 1; a }'), N(2));
  assert.deepEqual(evalExpr('{ a: 1, a: 2 }.a'), N(1));
  assert.deepEqual(evalExpr('{ a: 1 }["a"]'), N(1));
  assert.equal(evalDiags('{ a: 1 }.b')[0]!.message, "record has no field 'b'");
  assert.equal(evalDiags('{ a: 1 }["b"]')[0]!.message, "record has no field 'b'");
  assert.deepEqual(evalExpr('[10, 20, 30][1.9]'), N(20));
  assert.deepEqual(evalExpr('[10, 20, 30][-0.5]'), N(10));
  assert.equal(evalDiags('[1][3]')[0]!.message, 'array index 3 is out of bounds (length 1)');
  assert.equal(evalDiags('[1][0px]')[0]!.message, 'array index expected unitless integer, got number');
  assert.equal(evalDiags('[1]["a"]')[0]!.message, 'array index expected number, got string');
  assert.equal(evalDiags('{a: 1}[0]')[0]!.message, 'record index expected string, got number');
  assert.equal(evalDiags('1[0]')[0]!.message, 'indexing expected array or record, got number');
  assert.equal(evalDiags('(1).x')[0]!.message, 'field access expected record, got number');
});

test('field access on constructed nodes is nil; unbound name paths are constructed names', () => {
  assert.deepEqual(evalExpr('vec3(1, 2, 3).x'), { kind: 'nil' });
  assert.deepEqual(evalExpr('easing.out_cubic'), { kind: 'constructed', name: 'easing.out_cubic', fields: [] });
  assert.deepEqual(evalExpr('text.glyph("C")'), {
    kind: 'constructed',
    name: 'text.glyph',
    fields: [{ name: '', value: { kind: 'string', raw: '"C"' } }],
  });
  assert.deepEqual(evalExpr('forever'), { kind: 'constructed', name: 'forever', fields: [] });
});

test('calls, lambdas, method calls (stdlib.md §3.4, §3.5)', () => {
  assert.deepEqual(
    evalExpr('f(1, c: 3, b: 2)', 0, 'let f = |a: Number, b: Number, c: Number| { a*100 + b*10 + c };'),
    N(123),
  );
  assert.deepEqual(evalExpr('[g(2), g(2, 5), g(b: 1, 9)]', 0, 'let g = |a: Number, b: Number = a * 10| { b };'), {
    kind: 'array',
    elems: [N(20), N(5), N(1)],
  });
  assert.equal(evalDiags('f(q: 1)', 0, 'let f = |a: Number| { a };')[0]!.message, "missing required argument 'a'");
  assert.equal(
    evalDiags('c()', 0, 'component c() -> Frame { 1 }')[0]!.message,
    "value of kind 'number' is not callable",
  );
  // snapshot capture: no recursion, the inner name stays an unknown constructed node
  assert.deepEqual(evalExpr('f(2)', 0, 'let f = |n: Number| { f(n) };'), {
    kind: 'constructed',
    name: 'f',
    fields: [{ name: '', value: N(2) }],
  });
  // method call on a record builds a node, it does not call the lambda
  const v = evalExpr('r.f(4)', 0, 'let r = { f: |a: Number| { a } };');
  assert.equal(v.kind, 'constructed');
  assert.equal((v as { name: string }).name, 'f');
  assert.deepEqual(evalExpr('(r.f)(4)', 0, 'let r = { f: |a: Number| { a } };'), N(4));
  const chain = evalExpr('sphere(r: 1px).material(fill: #f00).rotate(y: 90deg)');
  assert.equal((chain as { name: string }).name, 'rotate');
  assert.deepEqual(evalExpr('|a: N, b: N| { a }'), { kind: 'lambda', params: ['a', 'b'] });
});

test('easings at known points (stdlib.md §4.5)', () => {
  close(EASINGS['easing.out_cubic']!(0.25), 0.578125);
  close(EASINGS['easing.in_out_cubic']!(0.25), 0.0625);
  close(EASINGS['easing.in_out_cubic']!(0.75), 0.9375);
  close(EASINGS['easing.in_quad']!(0.5), 0.25);
  close(EASINGS['easing.out_quad']!(0.5), 0.75);
  close(EASINGS['easing.in_out_quad']!(0.25), 0.125);
  close(EASINGS['easing.in_out_quad']!(0.75), 0.875);
  close(EASINGS['easing.in_cubic']!(0.5), 0.125);
  close(EASINGS['easing.linear']!(0.3), 0.3);
  for (const f of Object.values(EASINGS)) {
    close(f(0), 0);
    close(f(1), 1);
  }
  const a = (ez: string, t: number) => numberOf(evalExpr(`animate { 0s => 0, 1s => 100 } with { easing: ${ez} }`, t));
  close(a('easing.out_cubic', 0.25), 57.8125);
  close(a('easing.in_out_cubic', 0.25), 6.25);
  close(a('easing.in_sine', 0.25), 25); // unknown names fall back to linear
  close(a('out_cubic', 0.25), 25);
  // a method call yields a node named after an Object.prototype member: still just an unknown name
  close(numberOf(evalExpr('animate { 0s => 0, 1s => 100 } with { easing: x.toString() }', 0.25, 'let x = 1;')), 25);
  close(numberOf(evalExpr('animate { 0s => 0, 1s => 100 } with { easing: x.constructor() }', 0.25, 'let x = 1;')), 25);
  close(a('"easing.out_cubic"', 0.25), 25);
});

test('keyframes: ordering, n = 1, equal times, holds, units, stepping (stdlib.md §4.4)', () => {
  const at = (src: string, t: number) => evalExpr(src, t);
  const unsorted = 'animate { 2s => 0, 1s => 10, 3s => 20 }';
  assert.deepEqual(at(unsorted, 0), N(0));
  assert.deepEqual(at(unsorted, 2), N(0));
  close(numberOf(at(unsorted, 2.5)), 17.5);
  assert.deepEqual(at('animate { 5s => 7px }', 100), N(7, 'px'));
  assert.deepEqual(at('animate { 5s => 7px } with { repeat: forever }', 0), N(7, 'px'));
  assert.deepEqual(at('animate { 0s => 0, 1s => 5, 1s => 9, 2s => 10 }', 1), N(5));
  close(numberOf(at('animate { 0s => 0, 1s => 5, 1s => 9, 2s => 10 }', 1.5)), 9.5);
  assert.deepEqual(at('animate { 1s => 1, 2s => 2 }', 0), N(1));
  assert.deepEqual(at('animate { 1s => 1, 2s => 2 }', 9), N(2));
  assert.deepEqual(at('animate { 0 => 0px, 1 => 10deg }', 0.5), N(5, 'px'));
  assert.deepEqual(at('animate { 0s => 0, 1s => 10px }', 0.5), N(5));
  assert.deepEqual(at('animate { 0s => 0s, 1s => 1000ms }', 0.5), N(0.5, 's'));
  assert.deepEqual(at('animate { 0ms => 0, 1000ms => 10 }', 0.5), N(5));
  assert.deepEqual(at('animate { 0s => "a", 1s => "b" }', 0.99), { kind: 'string', raw: '"a"' });
  assert.deepEqual(at('animate { 0s => "a", 1s => "b" }', 1), { kind: 'string', raw: '"b"' });
  // nested animation and arithmetic on animated values
  close(numberOf(at('animate { 0s => 0, 2s => animate { 0s => 10, 2s => 20 } }', 1)), 7.5);
  close(
    numberOf(evalExpr('rot * 2', 1.5, 'let rot = animate { 0s => 0deg, 6s => 360deg } with { repeat: forever };')),
    180,
  );
  // malformed (string time) passes through unresolved
  assert.equal((at('animate { "a" => 1 }', 0) as { name: string }).name, 'animate');
});

test('repeat: forever (also before T_min) and repeat: N', () => {
  const fv = 'animate { 0s => 0, 2s => 10 } with { repeat: forever }';
  assert.deepEqual(evalExpr(fv, 2), N(0));
  assert.deepEqual(evalExpr(fv, 3), N(5));
  assert.deepEqual(evalExpr(fv, 7), N(5));
  close(numberOf(evalExpr('animate { 1s => 0, 3s => 10 } with { repeat: forever }', 0)), 5);
  const r3 = 'animate { 0s => 0, 1s => 10 } with { repeat: 3 }';
  close(numberOf(evalExpr(r3, 0.5)), 5);
  close(numberOf(evalExpr(r3, 2.5)), 5);
  assert.deepEqual(evalExpr(r3, 3), N(10));
  assert.deepEqual(evalExpr(r3, 5.5), N(10));
  assert.deepEqual(evalExpr(r3, -1), N(0));
  close(numberOf(evalExpr('animate { 0s => 0, 1s => 10 } with { repeat: 1 }', 0.5)), 5);
  assert.deepEqual(evalExpr('animate { 0s => 0, 1s => 10 } with { repeat: 1 }', 1.5), N(10));
});

test('wave (stdlib.md §4.6)', () => {
  const w = 'wave(amplitude: 8.6deg, period: 12s)';
  close(numberOf(evalExpr(w, 3)), 8.6);
  close(numberOf(evalExpr(w, 6)), 0);
  close(numberOf(evalExpr(w, 9)), -8.6);
  assert.deepEqual(evalExpr(w, 0), N(0, 'deg'));
  close(numberOf(evalExpr('wave(amplitude: 2, period: 4000ms)', 1)), 2);
  assert.equal((evalExpr('wave(8deg, 12s)', 1) as { kind: string }).kind, 'constructed');
  assert.equal((evalExpr('wave(amplitude: 1, period: 0s)', 1) as { kind: string }).kind, 'constructed');
});

test('bounce (stdlib.md §4.7)', () => {
  const b = 'bounce(height: 400px, period: 1s, floor: -200px)';
  assert.deepEqual(evalExpr(b, 0), {
    kind: 'record',
    fields: [
      { name: 'position', value: N(-200, 'px') },
      { name: 'impacts', value: { kind: 'array', elems: [N(0, 's'), N(1, 's')] } },
    ],
  });
  close(numberOf(evalExpr(b + '.position', 0.25)), 100);
  assert.deepEqual(evalExpr(b + '.impacts', 3.3), {
    kind: 'array',
    elems: [N(1, 's'), N(2, 's'), N(3, 's'), N(4, 's')],
  });
  // field_of (stdlib.md §4.8): a missing field of a signal is nil, not an error
  assert.deepEqual(evalExpr(b + '.nope'), { kind: 'nil' });
  assert.deepEqual(evalDiags(b + '.nope'), []);
  assert.deepEqual(evalExpr('bounce(height: 1, period: 1s).position'), { kind: 'nil' });
  // worked example of stdlib.md §8 at t = 0.3
  close(numberOf(evalExpr('bounce(height: 760px, period: 1.2s, floor: -540px).position', 0.3)), 30);
});

test('on_event (stdlib.md §4.9)', () => {
  const e = 'on_event(bounce(height: 400px, period: 1s, floor: -200px).impacts, decay: 0.2s, peak: 0.5)';
  close(numberOf(evalExpr(e, 0)), 0.5);
  close(numberOf(evalExpr(e, 1)), 0.5);
  close(numberOf(evalExpr(e, 1.2)), 0.5 / Math.E);
  close(numberOf(evalExpr('on_event(events: [1, 2], decay: 200ms, peak: 2px)', 0.5)), 0);
  assert.deepEqual(evalExpr('on_event([1s], decay: 1s, peak: 2px)', 0.5), N(0, 'px'));
  close(numberOf(evalExpr('on_event([1s, "x", 2000ms], decay: 1s, peak: 1)', 3)), Math.exp(-1));
  close(
    numberOf(
      evalExpr('on_event(bounce(height: 760px, period: 1.2s, floor: -540px).impacts, decay: 0.18s, peak: 0.35)', 0.3),
    ),
    0.35 * Math.exp(-0.3 / 0.18),
    1e-6,
  );
  assert.equal((evalExpr('on_event([1], decay: 0s, peak: 1)', 2) as { kind: string }).kind, 'constructed');
});

test('noise is deterministic, smooth and in [-1, 1]', () => {
  let prev = noise(7, 1, 0);
  for (let i = 1; i <= 2000; i++) {
    const t = i / 100;
    const v = noise(7, 1, t);
    assert.ok(v >= -1 && v <= 1);
    assert.ok(Math.abs(v - prev) < 0.1, 'smooth');
    assert.equal(v, noise(7, 1, t));
    prev = v;
  }
  assert.notEqual(noise(1, 1, 0.5), noise(2, 1, 0.5));
  const a = numberOf(evalExpr('noise(seed: 3, period: 2s)', 1.25));
  assert.equal(a, noise(3, 2, 1.25));
  assert.equal(a, numberOf(evalExpr('noise(seed: 3, period: 2s)', 1.25)));
});

test('time is floored to whole nanoseconds', () => {
  close(numberOf(evalExpr('animate { 0s => 0, 1s => 1000000000 }', 0.0000000019)), 1);
});

test('hostile sources give diagnostics quickly and never throw', () => {
  const cases: [string, string][] = [
    ['let f = |g: Fn| { g(g) }; scene s() -> F { f(f) }', 'EVL007'],
    [
      'let f = |g: Fn, n: Number| { if n > 0 { [g(g, n - 1), g(g, n - 1)] } else { 0 } }; scene s() -> F { f(f, 60) }',
      'EVL006',
    ],
    [
      'let f = |g: Fn, n: Number| { if n > 0 { let x = g(g, n - 1); [x, x] } else { 0 } }; scene s() -> F { f(f, 60) }',
      'EVL008',
    ],
  ];
  for (const [src, code] of cases) {
    const t0 = performance.now();
    const c = compile(src);
    assert.ok(performance.now() - t0 < 3000, `${code} took too long`);
    assert.equal(c.ok, false);
    assert.ok(
      c.diagnostics.some((d) => d.code === code),
      JSON.stringify(c.diagnostics.map((d) => d.code)),
    );
  }
  const big = 'scene s() -> F { [' + '1, '.repeat(20000) + '] }';
  const c = compile(big);
  assert.equal(c.ok, true);
  assert.equal((c.program!.sceneAt(0).value as { elems: unknown[] }).elems.length, 20000);
});

test('which binding renders, duration', () => {
  const v = (src: string) => compile(src).program!.sceneAt(0).value;
  assert.deepEqual(v('let x = 1; scene s() -> F { 2 }'), N(2));
  assert.deepEqual(v('scene a(q: N) -> F { 1 } scene b() -> F { 2 } scene c() -> F { 3 }'), N(2));
  assert.deepEqual(v('let x = 1; component c() -> F { 2 }'), N(2));
  assert.deepEqual(v('let x = 1; let y = 2;'), N(1));
  for (const src of ['', '// only a comment', 'runner "0.0.13";', 'scene s(a: N) -> F { 1 }']) {
    const c = compile(src);
    assert.equal(c.ok, false);
    assert.equal(c.diagnostics[0]!.code, 'REN001');
    assert.equal(c.diagnostics[0]!.message, 'no scene to render');
  }
  const d = (src: string) => compile(src).program!.durationSeconds;
  assert.equal(d('scene s(duration: Duration = 12s) -> F { 1 }'), 12);
  assert.equal(d('scene s(duration: Duration = 1_500ms) -> F { 1 }'), 1.5);
  assert.equal(d('scene s(duration: Time = 2s + 500ms) -> F { 1 }'), 2.5);
  assert.equal(d('scene s() -> F { 1 }'), 6);
  assert.equal(d('let duration = 3s; scene s() -> F { 1 }'), 6);
  assert.equal(d('scene s(duration: Duration = 0s) -> F { 1 }'), 6);
  // the duration parameter is readable inside the body
  assert.deepEqual(v('scene s(duration: Duration = 4s) -> F { duration * 2 }'), N(8, 's'));
  // errors in bindings that do not render still fail the source
  assert.equal(compile('let bad = 1 + "a"; scene s() -> F { 1 }').ok, false);
});

test('evaluation diagnostics come in evaluation order (receiver before arguments)', () => {
  const d = evalDiags('(1 + "a").m(2 + "b")');
  assert.equal(d.length, 2);
  assert.ok(d[0]!.column < d[1]!.column);
  const p = compile('scene s() -> F {\n  [1 + true, 2s + 1px]\n}').program!.sceneAt(0).diagnostics;
  assert.deepEqual(
    p.map((x) => [x.code, x.line, x.column, x.length]),
    [
      ['EVL002', 2, 4, 8],
      ['EVL002', 2, 14, 8],
    ],
  );
  assert.ok(p.every((x) => x.help.length > 0));
});

test('arithmetic and conditions on animated values work per frame', () => {
  const pre = 'let w = wave(amplitude: 1, period: 4s);';
  assert.deepEqual(evalExpr('if w > 0 { "up" } else { "down" }', 1, pre), { kind: 'string', raw: '"up"' });
  assert.deepEqual(evalExpr('if w > 0 { "up" } else { "down" }', 3, pre), { kind: 'string', raw: '"down"' });
  close(numberOf(evalExpr('-w * 10', 1, pre)), -10);
});

test('rendered values deeper than the viewer can take are EVL008', () => {
  const inner = '['.repeat(5) + 'g(g, n - 1)' + ']'.repeat(5);
  const c = compile(`let f = |g: Fn, n: Number| { if n > 0 { ${inner} } else { 0 } }; scene s() -> F { f(f, 60) }`);
  assert.equal(c.ok, false);
  assert.equal(c.diagnostics[0]!.code, 'EVL008');
  assert.match(c.diagnostics[0]!.message, /nested too deeply/);
  const ok = compile(`let f = |g: Fn, n: Number| { if n > 0 { ${inner} } else { 0 } }; scene s() -> F { f(f, 30) }`);
  assert.equal(ok.ok, true);
});
