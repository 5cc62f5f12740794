// Where the shared example corpus lives: ../shared beside the repository (as on CI), or CMRENDER_SHARED_DIR.
// The repository must stand alone: a clone without the corpus passes `npm test`, and every test that needs the corpus
// says so by name (node:test `skip`) instead of failing or vanishing. This module is the one place that decides.
import { existsSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { repoRoot } from '../../src/paths.js';

export { repoRoot };
export const sharedDir = process.env.CMRENDER_SHARED_DIR ?? resolve(repoRoot, '..', 'shared');
export const examplesDir = join(sharedDir, 'examples');
export const referenceDir = join(sharedDir, 'reference');

/** Our own examples (examples/ of this repository): always present, for tests that only need some real source. */
export const ownExamplesDir = join(repoRoot, 'examples');

/** Our own compatibility corpus (test/corpus of this repository, issue 37): always present. */
export const ownCorpusDir = join(repoRoot, 'test', 'corpus');

/** True when the corpus (its examples folder at least) is beside us. */
export const hasCorpus = existsSync(examplesDir);

/**
 * The `skip` option of a test that reads the corpus: false when it is present, otherwise the reason, which the test
 * runner prints beside the test's name. `what` says what the test needs, e.g. corpusSkip('reference frames').
 */
export function corpusSkip(what: string): false | string {
  return hasCorpus ? false : `needs ../shared (corpus): ${what}`;
}
