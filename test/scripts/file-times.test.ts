// scripts/lib/file-times.mjs, the reporter behind `npm test`'s slowest-files list, on files that share a process the
// way scripts/test.ts batches them: each file's time is its own suite's, hooks included, although its tests' events
// reach the runner all at once when the suite ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/shared.js';

test('a batched file is timed by its suite: a 600 ms test and a 400 ms after hook make it at least 1 s', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cmr-file-times-'));
  try {
    writeFileSync(
      join(dir, 'slow.test.mjs'),
      `import { test, after } from 'node:test';
after(() => new Promise((r) => setTimeout(r, 400)));
test('waits', () => new Promise((r) => setTimeout(r, 600)));
test('quick', () => {});
`,
    );
    writeFileSync(join(dir, 'quick.test.mjs'), `import { test } from 'node:test';\ntest('quick', () => {});\n`);
    // as scripts/test.ts writes a batch: one suite per file, named by its path from the working directory
    writeFileSync(
      join(dir, 'x.batch.mjs'),
      [`import { describe } from 'node:test';`]
        .concat(
          ['slow.test.mjs', 'quick.test.mjs'].map(
            (f) =>
              `describe(${JSON.stringify(f)}, async () => { await import(${JSON.stringify(pathToFileURL(join(dir, f)).href)}); });`,
          ),
        )
        .join('\n'),
    );
    const out = join(dir, 'times.jsonl');
    const r = spawnSync(
      process.execPath,
      [
        '--test',
        `--test-reporter=${join(repoRoot, 'scripts/lib/file-times.mjs')}`,
        `--test-reporter-destination=${out}`,
        'x.batch.mjs',
      ],
      // without the runner's own marker, which would have the inner run report to this one instead of its reporter
      { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
    assert.equal(r.status, 0, r.stderr);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; ms: number; tests: number });
    const slow = rows.find((row) => row.file === join(dir, 'slow.test.mjs'));
    const quick = rows.find((row) => row.file === join(dir, 'quick.test.mjs'));
    assert.ok(slow && quick, JSON.stringify(rows));
    assert.equal(slow.tests, 2);
    assert.equal(quick.tests, 1);
    assert.ok(slow.ms >= 1000, `the slow file took ${slow.ms} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
