// The tests run against what `npm run build` made (npm test builds once, before any test): a test never builds
// dist/ itself, so test files running side by side cannot race on it. Run alone, a test says what is missing.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { editorDistDir, viewerDistDir } from '../../src/paths.js';
import { current } from '../../scripts/build-stamp.js';

function built(dir: string, file: string): string {
  if (!existsSync(join(dir, file)))
    throw new Error(`${join(dir, file)} is missing: run \`npm run build\` first (npm test does)`);
  return dir;
}

/** dist/viewer: the drawing page as the service serves it. */
export const builtViewer = () => built(viewerDistDir, 'index.html');
/** dist/editor: the editor page at `/`. */
export const builtEditor = () => built(editorDistDir, 'index.html');

let appChecked = false;
/** dist/app: the service's compiled entry points, built from src/ as it is now (checked once per test file). */
export function builtApp(): void {
  if (appChecked) return;
  if (!current('app'))
    throw new Error('dist/app is missing or older than src/: run `npm run build` first (npm test does)');
  appChecked = true;
}
