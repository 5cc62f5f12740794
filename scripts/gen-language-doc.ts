// Writes docs/language.md, the user-facing language reference, from src/lang/reference.ts (which reads the
// language's own tables). test/scripts/language-doc.test.ts fails when the committed file is not what this writes.
//
//   npx tsx scripts/gen-language-doc.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/paths.js';
import { languageReference } from '../src/lang/reference.js';

export const LANGUAGE_DOC = join(repoRoot, 'docs', 'language.md');

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = languageReference();
  writeFileSync(LANGUAGE_DOC, text);
  console.log(`wrote ${LANGUAGE_DOC} (${Buffer.byteLength(text)} bytes)`);
}
