// Where the shared example corpus lives: ../shared beside the repository (as on CI), or CMRENDER_SHARED_DIR.
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sharedDir = process.env.CMRENDER_SHARED_DIR ?? resolve(repoRoot, '..', 'shared');
export const examplesDir = join(sharedDir, 'examples');
export const referenceDir = join(sharedDir, 'reference');
