// docs/language.md is what scripts/gen-language-doc.ts writes from the language's tables (regenerate with
// `npx tsx scripts/gen-language-doc.ts`), it covers every stdlib entry and diagnostic code, and its scene examples
// compile clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { languageReference } from '../../src/lang/reference.js';
import { LANGUAGE_DOC } from '../../scripts/gen-language-doc.js';
import { STDLIB, STD_MODULES, signature } from '../../src/lang/stdlib-docs.js';
import { DIAGNOSTIC_DOCS } from '../../src/lang/diagnostic-docs.js';
import { RUNNERS } from '../../src/lang/runners.js';
import { compile } from '../../src/lang/index.js';

const text = languageReference();

test('docs/language.md is current (npx tsx scripts/gen-language-doc.ts)', () => {
  assert.equal(readFileSync(LANGUAGE_DOC, 'utf8'), text);
});

test('the reference has its sections, every module, entry with its signature, runner and code', () => {
  for (const h of [
    '## Syntax',
    '## Types and units',
    '## Scenes and time',
    '## Runner pins',
    '## The standard library',
    '## Diagnostics',
  ])
    assert.ok(text.includes(`\n${h}\n`), h);
  for (const m of STD_MODULES) assert.ok(text.includes(`\n## ${m}\n`), m);
  for (const e of STDLIB) assert.ok(text.includes(`\n${signature(e)}\n`), e.name);
  for (const r of RUNNERS) assert.ok(text.includes(`| \`${r.version}\` |`), r.version);
  for (const d of DIAGNOSTIC_DOCS) assert.ok(text.includes(`\n### ${d.code}\n`), d.code);
  // the units table comes from the units table of the lexer
  assert.ok(text.includes('| `ms` | `ms` | Time |') && text.includes('| `%` | `percent` | Percent |'));
});

test('the whole-scene examples of the prose compile clean', () => {
  const scenes = [...text.split('\n## The standard library')[0]!.matchAll(/```cm\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
  assert.ok(scenes.length >= 2);
  for (const s of scenes) assert.deepEqual(compile(s).diagnostics, [], s);
});
