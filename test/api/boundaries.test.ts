// The one-way pipeline: src/server reaches rendering only through the Renderer interface (src/render/types.ts), and
// nothing of three.js or the viewer. main.ts, the composition root, is the one file that constructs the renderer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { repoRoot } from '../helpers/app.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('src/server imports nothing of src/render but types.ts, nor three.js or viewer/ (main.ts excepted)', () => {
  const server = join(repoRoot, 'src', 'server');
  const files = sources(server).filter((f) => f !== join(server, 'main.ts'));
  assert.ok(files.length > 20);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      const where = `${relative(repoRoot, file)} imports '${spec}'`;
      assert.ok(spec !== 'three' && !spec.startsWith('three/'), where);
      if (!spec.startsWith('.')) continue;
      const target = relative(repoRoot, resolve(dirname(file), spec));
      assert.ok(!target.startsWith('viewer'), where);
      if (target.startsWith(join('src', 'render'))) assert.equal(target, join('src', 'render', 'types.js'), where);
    }
  }
});
