import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers.js';

test('src/lang uses no Node-only APIs (it is bundled into the viewer page)', () => {
  const dir = path.join(repoRoot, 'src', 'lang');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length >= 10);
  for (const f of files) {
    const src = readFileSync(path.join(dir, f), 'utf8');
    const imports = [...src.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    for (const i of imports) assert.ok(i.startsWith('./') || i === 'zod', `${f} imports ${i}`);
    assert.doesNotMatch(src, /\b(process|Buffer|require|__dirname)\b[.(]/, f);
  }
});
