// Where the repository's own files are, for production and tests alike (the viewer bundle, the golden files).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is src/paths.ts). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The built drawing page (`npm run build`). */
export const viewerDistDir = join(repoRoot, 'dist', 'viewer');

/** The built editor page served at `/` (`npm run build`). */
export const editorDistDir = join(repoRoot, 'dist', 'editor');
