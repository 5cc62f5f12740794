// Where the shared example corpus lives: ../shared beside the repository (as on CI), or CMRENDER_SHARED_DIR.
import { resolve, join } from 'node:path';
import { repoRoot } from '../../src/paths.js';

export { repoRoot };
export const sharedDir = process.env.CMRENDER_SHARED_DIR ?? resolve(repoRoot, '..', 'shared');
export const examplesDir = join(sharedDir, 'examples');
export const referenceDir = join(sharedDir, 'reference');
