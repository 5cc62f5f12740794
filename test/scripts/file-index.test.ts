// docs/files.md lists every source file of src/, viewer/src and editor/src by its header comment
// (scripts/lib/file-index.ts; regenerate with `npx tsx scripts/gen-file-index.ts`): a file added without it, or one
// removed and still listed, fails here, and so does a file that opens without a header comment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileIndex, firstSentence, headerOf, indexedFiles } from '../../scripts/lib/file-index.js';
import { FILE_INDEX_DOC } from '../../scripts/gen-file-index.js';

test('docs/files.md is current: no file missing, none listed that is gone (npx tsx scripts/gen-file-index.ts)', () => {
  const committed = readFileSync(FILE_INDEX_DOC, 'utf8');
  const listed = new Set([...committed.matchAll(/\]\(\.\.\/([^)]+)\)/g)].map((m) => m[1]!));
  const present = new Set(indexedFiles().map((f) => f.path));
  assert.deepEqual(
    [...present].filter((p) => !listed.has(p)),
    [],
    'files missing from docs/files.md',
  );
  assert.deepEqual(
    [...listed].filter((p) => !present.has(p)),
    [],
    'files listed in docs/files.md that are gone',
  );
  assert.equal(committed, fileIndex());
});

test('every source file opens with a header comment', () => {
  assert.deepEqual(
    indexedFiles()
      .filter((f) => f.summary === null)
      .map((f) => f.path),
    [],
  );
});

test('a header is the opening // block; its first sentence ends at a full stop before a capital', () => {
  assert.equal(headerOf('// One thing.\n// Two things.\nimport x;\n// not this'), 'One thing. Two things.');
  assert.equal(headerOf('import x;\n// late'), null);
  assert.equal(firstSentence('Owns the queue (e.g. its order). Why: speed.'), 'Owns the queue (e.g. its order).');
  assert.equal(firstSentence('No full stop here'), 'No full stop here');
});
