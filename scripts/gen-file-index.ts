// Writes docs/files.md, the index of every source file by its header comment (scripts/lib/file-index.ts).
// test/scripts/file-index.test.ts fails when the committed file is not what this writes.
//
//   npx tsx scripts/gen-file-index.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/paths.js';
import { fileIndex } from './lib/file-index.js';

export const FILE_INDEX_DOC = join(repoRoot, 'docs', 'files.md');

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = fileIndex();
  writeFileSync(FILE_INDEX_DOC, text);
  console.log(`wrote ${FILE_INDEX_DOC} (${text.split('\n').length} lines)`);
}
