// Where the repository's own files are, for production and tests alike (the viewer bundle, the golden files).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository (or image) root: the nearest folder above this module with a package.json. This module runs from
 * src/paths.ts under tsx and bundled into dist/app/*.js once built (`npm run build`), at different depths.
 */
export const repoRoot = rootAbove(dirname(fileURLToPath(import.meta.url)));

/** The built drawing page (`npm run build`). */
export const viewerDistDir = join(repoRoot, 'dist', 'viewer');

/** The built editor page served at `/` (`npm run build`). */
export const editorDistDir = join(repoRoot, 'dist', 'editor');

function rootAbove(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) throw new Error(`no package.json above ${dir}`);
  }
}
