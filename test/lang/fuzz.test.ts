// Property tests: random and mutated sources never make compile() / sceneAt() throw, always
// come back with either diagnostics or a tree, and stay within a time bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { compile, valueSchema } from '../../src/lang/index.js';
import { lex } from '../../src/lang/lexer.js';
import { examplesDir, ownExamplesDir, hasCorpus } from '../helpers/shared.js';

const sources = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.cm'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'));
// Seeds for mutation: our own examples always (so the test runs in a lone clone), the corpus and its errors when present.
const corpus = [
  ...sources(ownExamplesDir),
  ...(hasCorpus ? [...sources(examplesDir), ...sources(path.join(examplesDir, 'errors'))] : []),
];
const TIME_BOUND_MS = 2000;

function exercise(src: string): void {
  const t0 = performance.now();
  const c = compile(src);
  assert.equal(typeof c.ok, 'boolean');
  assert.ok(Array.isArray(c.diagnostics));
  for (const d of c.diagnostics) {
    assert.ok(d.line >= 1 && d.column >= 1 && d.length >= 0, JSON.stringify(d));
    assert.match(d.code, /^[A-Z]{3}\d{3}$/);
    assert.ok(d.help.length > 0 && d.repair.id.length > 0 && d.repair.summary.length > 0, JSON.stringify(d));
  }
  if (c.ok) assert.ok(c.program, 'ok implies a program');
  else
    assert.ok(
      c.diagnostics.some((d) => d.severity === 'error'),
      'not ok implies an error',
    );
  if (c.program) {
    for (const t of [0, 1.5, 7]) {
      const r = c.program.sceneAt(t);
      if (r.diagnostics.length === 0) valueSchema.parse(JSON.parse(JSON.stringify(r.value)));
    }
  }
  assert.ok(performance.now() - t0 < TIME_BOUND_MS, `took ${performance.now() - t0} ms`);
}

// token-level pieces for mutations
const PIECES = [
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ';',
  ':',
  '.',
  '=>',
  '->',
  '|',
  '||',
  '**',
  '-',
  '!',
  '%',
  '"',
  '"""',
  '/*',
  '*/',
  '//',
  '\n',
  'let',
  'if',
  'else',
  'match',
  'animate',
  'with',
  'compose',
  'scene',
  'x',
  '1',
  '2s',
  '#fff',
  'oklch(1,2,3)',
  'f(f)',
  '10 ** 400',
  '1 + "a"',
  '\u00e9',
  '\uFEFF',
];

const mutation = fc.oneof(
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 8 }) }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 4 })),
  }),
  fc.record({ op: fc.constant('swap' as const), at: fc.nat(), at2: fc.nat() }),
  fc.record({ op: fc.constant('dropToken' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('dupToken' as const), at: fc.nat() }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function apply(src: string, m: Mutation): string {
  const n = Math.max(1, src.length);
  switch (m.op) {
    case 'delete': {
      const a = m.at % n;
      return src.slice(0, a) + src.slice(a + m.len);
    }
    case 'insert': {
      const a = m.at % (src.length + 1);
      return src.slice(0, a) + m.text + src.slice(a);
    }
    case 'swap': {
      const a = m.at % n;
      const b = m.at2 % n;
      const chars = [...src];
      if (a < chars.length && b < chars.length) [chars[a], chars[b]] = [chars[b]!, chars[a]!];
      return chars.join('');
    }
    case 'dropToken':
    case 'dupToken': {
      const toks = lex(src).filter((t) => t.kind !== 'eof' && t.kind !== 'error');
      if (toks.length === 0) return src;
      const t = toks[m.at % toks.length]!;
      return m.op === 'dropToken'
        ? src.slice(0, t.start) + src.slice(t.end)
        : src.slice(0, t.end) + ' ' + t.text + src.slice(t.end);
    }
  }
}

test('mutated examples never throw and stay within the time bound', () => {
  fc.assert(
    fc.property(fc.nat({ max: corpus.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 6 }), (i, ms) => {
      let src = corpus[i]!;
      for (const m of ms) src = apply(src, m);
      exercise(src);
    }),
    { numRuns: 2500, seed: 20261121 },
  );
});

test('random token soup and random strings never throw', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.constantFrom(
          ...PIECES,
          ' ',
          'rect',
          'width',
          'px',
          '0',
          'use',
          'std',
          '*',
          'runner',
          '"0.0.3"',
          '=',
          '<',
          '>',
          '>=',
        ),
        { maxLength: 60 },
      ),
      (parts) => {
        exercise(parts.join(' '));
        exercise(parts.join(''));
      },
    ),
    { numRuns: 1500, seed: 7 },
  );
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (s) => exercise(s)),
    { numRuns: 1000, seed: 11 },
  );
});

test('programs built from valid fragments evaluate or report, never throw', () => {
  const expr: fc.Arbitrary<string> = fc.letrec((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(
        '1',
        '2px',
        '500ms',
        '1s',
        '90deg',
        '"s"',
        'true',
        '#f0f',
        'x',
        'forever',
        'vec3(1,2,3)',
        'bounce(height: 1px, period: 1s, floor: 0px)',
      ),
      fc
        .tuple(tie('e'), fc.constantFrom('+', '-', '*', '/', '%', '**', '<', '==', '&&', '||'), tie('e'))
        .map(([a, o, b]) => `(${a} ${o} ${b})`),
      tie('e').map((a) => `[${a}, ${a}]`),
      tie('e').map((a) => `{ k: ${a} }.k`),
      tie('e').map((a) => `animate { 0s => ${a}, 2s => ${a} } with { repeat: forever, easing: easing.in_out_cubic }`),
      fc.tuple(tie('e'), tie('e')).map(([a, b]) => `if ${a} { ${b} } else { ${a} }`),
      tie('e').map((a) => `match ${a} { 1 => 2, y => y }`),
      tie('e').map((a) => `(|q: N| { q * 2 })(${a})`),
      tie('e').map((a) => `wave(amplitude: ${a}, period: 2s)`),
      tie('e').map((a) => `oklch(${a}, 0.1, ${a})`),
      tie('e').map((a) => `${a}.x`),
      tie('e').map((a) => `${a}[0]`),
    ),
  })).e;
  fc.assert(
    fc.property(expr, (e) =>
      exercise(
        `let x = 3; scene s() -> Frame { let y = ${e}; compose [rect(width: 10px, height: 10px, fill: #000), y] }`,
      ),
    ),
    { numRuns: 1500, seed: 3 },
  );
});
