// The tests as plain JavaScript: every TypeScript file the tests load (src/, test/, scripts/, viewer/src,
// editor/src) transpiled one to one into dist/tests/ under the same relative path, with source maps, so that
// scripts/test.ts runs them with plain `node --test`. Running them through tsx instead costs each test file's process
// (and each worker thread it starts) 0.4-1.3 s of CPU in tsx's loader, on a 2-core machine where the suite is
// CPU-bound: about two minutes a run. Transpiling all of it takes about a second. Nothing is bundled: each module
// stays its own file, so the tests load the code as they would under tsx, and src/paths.ts still finds the
// repository root (the nearest package.json above dist/tests/src/). A file that reads a sibling by its own location
// (import.meta.url) must name it from repoRoot instead.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from '../../src/paths.js';

/** Where the transpiled tree goes, under the repository. */
export const TESTS_OUT = join(repoRoot, 'dist', 'tests');

/** The folders the tests import TypeScript from. */
const ROOTS = ['src', 'test', 'scripts', 'viewer/src', 'editor/src'];

/** The files under dir whose names pass `wanted`. */
function filesUnder(dir: string, wanted: (name: string) => boolean, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) filesUnder(p, wanted, out);
    else if (wanted(e.name)) out.push(p);
  }
  return out;
}

/** Transpiles the tree afresh (a file removed from src/ must not linger in dist/tests/). */
export async function compileTests(): Promise<void> {
  rmSync(TESTS_OUT, { recursive: true, force: true });
  await build({
    entryPoints: ROOTS.flatMap((r) => filesUnder(join(repoRoot, r), (n) => n.endsWith('.ts') && !n.endsWith('.d.ts'))),
    outdir: TESTS_OUT,
    outbase: repoRoot,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // the JavaScript the tests import beside the TypeScript (scripts/build-stamp.js), as it is
  for (const f of ROOTS.flatMap((r) => filesUnder(join(repoRoot, r), (n) => /\.[cm]?js$/.test(n)))) {
    const to = join(TESTS_OUT, relative(repoRoot, f));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(f, to);
  }
}

/** The transpiled path of a repository file (test/a.test.ts → dist/tests/test/a.test.js). */
export function compiledPath(file: string): string {
  return join(TESTS_OUT, relative(repoRoot, join(repoRoot, file)).replace(/\.ts$/, '.js'));
}
