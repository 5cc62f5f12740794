// The compatibility corpus the project owns (test/corpus/*.cm, issue 37): small scenes of our own, one per theme,
// that together exercise the cases and the sections of language.md and stdlib.md. Here, in process: every
// scene compiles and evaluates clean (the one meant to warn warns exactly as expected), every entry of the stdlib
// table is used by some scene in its own form (a call, a method or a bare symbol), and every unit is written in one.
// test/render/corpus-golden.test.ts draws each scene on both GL backends against recorded hashes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { compile, valueSchema } from '../../src/lang/index.js';
import { lex, type Token } from '../../src/lang/lexer.js';
import { STDLIB } from '../../src/lang/stdlib-docs.js';
import { UNIT_SUFFIXES } from '../../src/lang/units.js';
import { ownCorpusDir } from '../helpers/shared.js';

const files = readdirSync(ownCorpusDir)
  .filter((f) => f.endsWith('.cm'))
  .sort();
const sources = new Map(files.map((f) => [f, readFileSync(path.join(ownCorpusDir, f), 'utf8')]));

/**
 * The diagnostics each scene is meant to give; every other scene gives none. The library warnings (LIB*, ANI001) some
 * scenes are meant to give are listed per file in test/lang/library-warnings.test.ts.
 */
const libraryWarning = (code: string): boolean => code.startsWith('LIB') || code === 'ANI001';
const EXPECTED: Record<string, [string, string, string][]> = {
  'glob-unknown.cm': [['warning', 'NAM003', "unknown identifier 'middle'"]],
};

test('the corpus holds 15 to 25 scenes, each opening with a header naming what it exercises', () => {
  assert.ok(files.length >= 15 && files.length <= 25, `found ${files.length}`);
  for (const [f, src] of sources) {
    const header = src.slice(0, src.indexOf('\n\n'));
    assert.match(header, /^\/\/ Corpus: /, `${f}: no "// Corpus:" header`);
    assert.match(header, /(language|stdlib)\.md §\d|issue 37/, `${f}: the header names no spec section`);
  }
});

for (const f of files) {
  test(`test/corpus/${f} compiles with exactly its expected diagnostics and evaluates clean`, () => {
    const c = compile(sources.get(f)!);
    assert.deepEqual(
      c.diagnostics.filter((d) => !libraryWarning(d.code)).map((d) => [d.severity, d.code, d.message]),
      EXPECTED[f] ?? [],
    );
    assert.ok(c.ok && c.program, f);
    for (const t of [0, 0.5, c.program.durationSeconds / 2]) {
      const { value, diagnostics } = c.program.sceneAt(t);
      assert.deepEqual(diagnostics, [], `${f} at ${t}`);
      assert.deepEqual(valueSchema.parse(JSON.parse(JSON.stringify(value))), value, `${f} at ${t}: the viewer's input`);
      assert.equal((value as { name?: string }).name, 'compose', `${f} at ${t}: a composed frame`);
    }
  });
}

/** What the corpus writes, read from its tokens (so comments and strings do not count). */
function usage() {
  const calls = new Set<string>(); // `rect(`, `text.glyph(`
  const methods = new Set<string>(); // `.material(`
  const symbols = new Set<string>(); // `cover`, `easing.out_cubic` (not called)
  const units = new Set<string>();
  for (const src of sources.values()) {
    const toks = lex(src).filter((t) => t.kind !== 'eof');
    assert.ok(!toks.some((t) => t.kind === 'error'));
    const at = (i: number): Token | undefined => toks[i];
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i]!;
      if (t.kind === 'number' && t.unit) units.add(t.unit);
      if (t.kind !== 'ident') continue;
      if (at(i - 1)?.text === '.') {
        if (at(i + 1)?.text === '(') methods.add(t.text); // `.fit(` after a call, `.material(` after a name
        continue;
      }
      // a dotted path rooted here: text.glyph, easing.in_quad
      let name = t.text;
      let j = i + 1;
      while (at(j)?.text === '.' && at(j + 1)?.kind === 'ident') {
        name += `.${at(j + 1)!.text}`;
        j += 2;
      }
      if (at(j)?.text === '(')
        calls.add(name); // rect(...), text.glyph(...)
      else symbols.add(name); // cover, easing.out_cubic
    }
  }
  return { calls, methods, symbols, units };
}

test('every entry of the stdlib table (src/lang/stdlib-docs.ts) is used by the corpus in its own form', () => {
  const { calls, methods, symbols } = usage();
  const missing = STDLIB.filter((e) =>
    e.kind === 'function' ? !calls.has(e.name) : e.kind === 'method' ? !methods.has(e.name) : !symbols.has(e.name),
  ).map((e) => `${e.kind} ${e.name}`);
  assert.deepEqual(missing, [], `not used by any test/corpus scene: ${missing.join(', ')}`);
  assert.ok(STDLIB.length > 60, `${STDLIB.length} entries`);
});

test('every unit of the unit table (src/lang/units.ts) is written in the corpus', () => {
  const { units } = usage();
  const missing = UNIT_SUFFIXES.filter((u) => !units.has(u));
  assert.deepEqual(missing, [], `no number in test/corpus carries: ${missing.join(', ')}`);
});

test('the coverage check can fail: without signals.cm and solids.cm, what only they use is missing', () => {
  const kept = new Map(sources);
  sources.delete('signals.cm');
  sources.delete('solids.cm');
  try {
    const { calls, methods, units } = usage();
    assert.equal(calls.has('bounce'), false);
    assert.equal(calls.has('on_event'), false);
    assert.equal(calls.has('gradient'), false);
    assert.equal(methods.has('squash'), false);
    assert.equal(units.has('ms'), true); // still written elsewhere
  } finally {
    for (const [k, v] of kept) sources.set(k, v);
  }
});
