// The job record has one writer (docs/architecture.md, src/server/jobs/job-records.ts), read from the source as the
// import rules are: outside JobRecords and the store adapters, nothing starts or ends a record (markStarted,
// endIfPending), nothing that holds the job store puts or deletes a record, nothing merges fields into a record
// (Object.assign) and nothing hangs hidden state on one (Object.defineProperty). A new writer fails here by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const OWNER = 'src/server/jobs/job-records.ts';
const ADAPTERS = 'src/server/jobs/store/';

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every place a file outside the owner and the adapters writes a job record, as `file:line what`. */
function writers(): string[] {
  const found: string[] = [];
  for (const file of sources('src')) {
    const rel = relative(ROOT, join(ROOT, file)).split('\\').join('/');
    if (rel === OWNER || rel.startsWith(ADAPTERS)) continue;
    const text = readFileSync(join(ROOT, file), 'utf8');
    // a file that holds the job store (imports its port's store types) is one that could write through it
    const holdsStore = /import[^;]*\b(JobStore|LifecycleStore)\b[^;]*from '[./]*(jobs\/)?store\/port\.js'/.test(text);
    const rules: [RegExp, string, boolean][] = [
      [/\.(markStarted|endIfPending)\(/, 'starts or ends a record', true],
      [/\bstore\??\.(put|delete)\(/, 'puts or deletes a record through the job store', holdsStore],
      [/Object\.assign\((rec|fresh|record|job)\b/, 'merges fields into a record', rel.startsWith('src/server/')],
      [/Object\.defineProperty\(/, 'hangs hidden state on an object', rel.startsWith('src/server/jobs/')],
    ];
    text.split('\n').forEach((line, i) => {
      for (const [re, what, applies] of rules) if (applies && re.test(line)) found.push(`${rel}:${i + 1} ${what}`);
    });
  }
  return found;
}

test('only JobRecords (and the store adapters it writes through) writes a job record', (ctx) => {
  const found = writers();
  ctx.diagnostic(`record writers outside ${OWNER}: ${found.length}`);
  assert.deepEqual(found, [], `every change of a job record goes through ${OWNER}`);
});
