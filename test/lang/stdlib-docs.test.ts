// The stdlib table (src/lang/stdlib-docs.ts) against what the language really defines: the checker's globals
// (STDLIB_NAMES), the easings the animator knows, the time signals the evaluator resolves and the names the drawer
// builds. A name callable but undocumented, or documented but not callable, fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { STDLIB, STD_MODULES, signature, stdEntry, memberName, sinceOf } from '../../src/lang/stdlib-docs.js';
import { STDLIB_NAMES } from '../../src/lang/stdlib.js';
import { EASINGS } from '../../src/lang/signals/easings.js';
import { RUNNERS } from '../../src/lang/runners.js';
import { compile } from '../../src/lang/index.js';
import { repoRoot } from '../helpers/shared.js';

const root = (name: string) => name.split('.')[0]!;
const viewerSource = readdirSync(path.join(repoRoot, 'viewer/src/build'))
  .map((f) => readFileSync(path.join(repoRoot, 'viewer/src/build', f), 'utf8'))
  .join('\n');
const evaluatorSource = readFileSync(path.join(repoRoot, 'src/lang/evaluator.ts'), 'utf8');

test('every global the checker knows is documented, and every documented global is one the checker knows', () => {
  const documentedRoots = new Set(STDLIB.filter((e) => e.kind !== 'method').map((e) => root(e.name)));
  const undocumented = [...STDLIB_NAMES].filter((n) => n !== 'std' && !documentedRoots.has(n));
  assert.deepEqual(undocumented, [], 'callable (STDLIB_NAMES) but not in the table');
  const unknown = [...documentedRoots].filter((n) => !STDLIB_NAMES.has(n));
  assert.deepEqual(unknown, [], 'in the table but not a name the checker knows');
});

test('the easings in the table are exactly the easings the animator knows', () => {
  const documented = STDLIB.filter((e) => e.name.startsWith('easing.'))
    .map((e) => e.name)
    .sort();
  assert.deepEqual(documented, Object.keys(EASINGS).sort());
});

test('every name the drawer builds (a case of the builder) is documented, and every implemented entry is built or resolved', () => {
  const built = [...viewerSource.matchAll(/case '([a-z_0-9.]+)':/g)].map((m) => m[1]!);
  assert.ok(built.includes('rect') && built.includes('material'), 'the builder still dispatches by name');
  const syntax = new Set(['compose']); // a keyword form (language.md), documented with the syntax
  const missing = [...new Set(built)].filter((n) => !syntax.has(n) && !stdEntry(n));
  assert.deepEqual(missing, [], 'drawn by the viewer but not in the table');

  // the time signals the evaluator resolves by name (its `staged` switch)
  const signals = [...evaluatorSource.matchAll(/case '([a-z_]+)':\s*\n\s*v = /g)].map((m) => m[1]!);
  assert.deepEqual(signals.sort(), ['bounce', 'noise', 'on_event', 'wave']);
  for (const s of signals) assert.equal(stdEntry(s)?.implemented, true, `${s} is resolved by the evaluator`);

  const notReached = STDLIB.filter(
    (e) =>
      e.implemented &&
      e.kind !== 'symbol' &&
      !signals.includes(e.name) &&
      !viewerSource.includes(`'${e.name}'`) &&
      !viewerSource.includes(`"${e.name}"`),
  ).map((e) => e.name);
  assert.deepEqual(notReached, [], 'documented as implemented, but neither the evaluator nor the drawer reads it');
});

test('the entries are well formed: one per name, a module, help, a result, typed parameters, examples that compile', () => {
  const names = STDLIB.map((e) => e.name);
  assert.equal(new Set(names).size, names.length, 'one entry per name');
  for (const e of STDLIB) {
    assert.match(e.module, /^std\.[a-z0-9]+$/, e.name);
    assert.ok(e.help.length > 10 && e.help.length < 300, `${e.name}: help is one or two lines`);
    assert.ok(e.result.length > 0, e.name);
    assert.equal(new Set(e.params.map((p) => p.name)).size, e.params.length, `${e.name}: parameter names repeat`);
    for (const p of e.params) assert.ok(p.name && p.type, `${e.name}.${p.name}`);
    if (e.kind === 'method') assert.ok(e.receiver, `${e.name} names its receiver`);
    if (e.example) {
      // an example is an expression (or a let, or a method chain), placed in a scene so it runs for real
      const ex = e.example;
      if (ex.startsWith('scene') || ex.startsWith('.') || ex.startsWith('render3d(s')) continue;
      const body = ex.startsWith('let ') ? `${ex}\n  1` : `let x = ${ex};\n  1`;
      const c = compile(`scene s() -> Frame {\n  ${body}\n}\n`);
      assert.deepEqual(
        c.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`),
        [],
        `${e.name}'s example: ${ex}`,
      );
    }
  }
  assert.ok(STD_MODULES.includes('std.shapes') && STD_MODULES.includes('std.anim'));
});

test('signatures read as the editor shows them, and pins come from the runner list', () => {
  assert.equal(signature(stdEntry('rect')!), 'rect(width?: Length, height?: Length, fill?: Color) -> Layer');
  assert.equal(signature(stdEntry('wave')!), 'wave(amplitude: Number, period: Duration) -> Number');
  assert.equal(signature(stdEntry('material')!).startsWith('Solid.material(fill?: Color | Image'), true);
  assert.equal(signature(stdEntry('forever')!), 'forever: Repeat');
  assert.equal(memberName(stdEntry('text.glyph')!), 'glyph');
  assert.equal(sinceOf(stdEntry('svg')!), '0.0.5');
  assert.equal(sinceOf(stdEntry('rect')!), null);
  const pinned = RUNNERS.flatMap((r) => r.functions);
  for (const f of pinned) assert.ok(stdEntry(f), `${f} has a runner pin but no entry`);
});
