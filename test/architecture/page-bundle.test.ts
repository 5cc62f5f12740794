// The service's drawing page receives evaluated values: its bundle holds none of the language's front end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from '../../src/paths.js';

test('the drawing page bundle holds no lexer, parser, checker or evaluator', async () => {
  const r = await build({
    entryPoints: [join(repoRoot, 'viewer', 'src', 'main.ts')],
    bundle: true,
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    outfile: 'out.js',
    absWorkingDir: repoRoot,
  });
  const inputs = Object.keys(r.metafile.inputs);
  const lang = inputs.filter((p) => p.startsWith('src/lang/')).sort();
  assert.ok(
    inputs.some((p) => p.startsWith('viewer/src/')),
    'the bundle was read',
  );
  assert.deepEqual(
    lang.filter((p) => /\/(lexer|parser|checker|evaluator|index|diagnostics)\.ts$/.test(p)),
    [],
    lang.join(', '),
  );
});

test('the editor bundle holds the language and the drawer, and nothing of the server or the renderer', async () => {
  const r = await build({
    entryPoints: [join(repoRoot, 'editor', 'src', 'main.ts')],
    bundle: true,
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    outfile: 'out.js',
    absWorkingDir: repoRoot,
    define: { __CM_EXAMPLES__: '[]' },
  });
  const inputs = Object.keys(r.metafile.inputs);
  for (const m of ['src/lang/checker.ts', 'src/lang/evaluator.ts', 'viewer/src/page-api.ts', 'viewer/src/viewer.ts'])
    assert.ok(inputs.includes(m), m);
  assert.deepEqual(
    inputs.filter((p) => p.startsWith('src/server/') || p.startsWith('src/render/')),
    [],
  );
});
