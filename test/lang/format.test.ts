// `fmt` (src/lang/format.ts) on every example, every corpus source and generated sources: formatting twice changes
// nothing, comments are kept, and the formatted source evaluates to the same scene value at several times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { formatSource } from '../../src/lang/format.js';
import { compile } from '../../src/lang/index.js';
import { lex } from '../../src/lang/lexer.js';
import { corpusSkip, examplesDir, hasCorpus, ownExamplesDir } from '../helpers/shared.js';

const fmt = (s: string): string => {
  const r = formatSource(s);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.diagnostics));
  return r.text;
};

/** The scene value (as JSON) at several times, and the error codes: what formatting must not change. */
function meaning(source: string): string {
  const c = compile(source);
  const codes = c.diagnostics.map((d) => `${d.severity} ${d.code}`);
  if (!c.program) return JSON.stringify({ codes });
  const d = c.program.durationSeconds;
  const values = [0, d / 3, d / 2, d].map((t) => c.program!.sceneAt(t).value);
  return JSON.stringify({ codes, values, d });
}

function assertFormatsWell(source: string, name: string): string {
  const once = fmt(source);
  assert.equal(fmt(once), once, `${name}: fmt(fmt(x)) == fmt(x)`);
  assert.equal(meaning(once), meaning(source), `${name}: same scene value`);
  const comments = (s: string) => [...s.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) => m[0].trimEnd());
  assert.deepEqual(comments(once), comments(source), `${name}: every comment kept, in order`);
  assert.ok(once.endsWith('\n') && !once.endsWith('\n\n'), `${name}: one final newline`);
  assert.doesNotMatch(once, /[ \t]\n/, `${name}: no trailing whitespace`);
  return once;
}

const own = readdirSync(ownExamplesDir)
  .filter((f) => f.endsWith('.cm'))
  .sort();
const ownSources = own.map((f) => readFileSync(path.join(ownExamplesDir, f), 'utf8'));

for (const [i, f] of own.entries())
  test(`examples/${f}: idempotent, same value, comments kept`, () => {
    assertFormatsWell(ownSources[i]!, f);
  });

const corpus = hasCorpus
  ? readdirSync(examplesDir)
      .filter((f) => f.endsWith('.cm'))
      .sort()
  : [];
test('every corpus source: idempotent, same value, comments kept', { skip: corpusSkip('examples') }, () => {
  assert.ok(corpus.length > 5);
  for (const f of corpus) {
    const s = readFileSync(path.join(examplesDir, f), 'utf8');
    if (!formatSource(s).ok) continue; // a source that does not parse is refused (tested below)
    assertFormatsWell(s, f);
  }
});

test('a canonical layout: spacing, indentation, blank lines and the final newline', () => {
  const messy =
    'runner "0.0.13";\n\n\n\nscene  s( )->Frame{\n' +
    'let   a=rect( width:10px,height : 20px ,fill:#fff ) ;  // a square\n' +
    '      let b = [ a,a ] ;\n/* block */ compose[a ,\n' +
    'b[0]]\n}';
  const want =
    'runner "0.0.13";\n\nscene s() -> Frame {\n' +
    '  let a = rect(width: 10px, height: 20px, fill: #fff); // a square\n' +
    '  let b = [a, a];\n  /* block */ compose [a,\n    b[0]]\n}\n';
  assert.equal(fmt(messy), want);
  assert.equal(fmt(want), want);
});

test('a raw string keeps its lines and spaces, even trailing ones', () => {
  const src =
    'runner "0.0.13";\nscene s() -> Frame {\n  let x = """a  \n   b""";\n  compose [rect(width: 1px, height: 1px)]\n}\n';
  assert.equal(fmt(src), src);
});

test('a source that does not parse is not formatted: its syntax error comes back', () => {
  const r = formatSource('scene s() -> Frame { rect(width: 1px height: 2px) }');
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.diagnostics[0]!.code, 'PAR100');
});

// Generated sources: an example's tokens joined by random whitespace, blank lines and comments (where the source
// had no space, sometimes none), then formatted: idempotent and the same scene value.
const SEPARATORS = [' ', '  ', '\n', '\n\n\n', '\t', ' /* note */ ', ' // note\n', '\n  // note\n'];
test('generated layouts of every example format idempotently to the same scene value', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: ownSources.length - 1 }),
      fc.array(fc.integer({ min: 0, max: SEPARATORS.length }), { minLength: 400, maxLength: 400 }),
      (which, picks) => {
        const source = ownSources[which]!;
        const toks = lex(source).filter((t) => t.kind !== 'eof');
        let s = '';
        let prevEnd = 0;
        toks.forEach((t, i) => {
          const hadSpace = t.start > prevEnd;
          const pick = picks[i % picks.length]!;
          // index SEPARATORS.length: no separator, allowed only where the source had none
          s += pick === SEPARATORS.length ? (hadSpace ? ' ' : '') : i === 0 ? '' : SEPARATORS[pick];
          s += t.text;
          prevEnd = t.end;
        });
        s += '\n';
        const once = fmt(s);
        assert.equal(fmt(once), once);
        assert.equal(meaning(once), meaning(source));
      },
    ),
    { numRuns: 60 },
  );
});
