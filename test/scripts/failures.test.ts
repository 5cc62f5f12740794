// scripts/lib/failures.mjs, the reporter that has `npm test` name every failed test at the end of its log (CI keeps
// only a log's tail): the failed tests themselves, with their file and error, not the suites around them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';

test('a failed test is listed with its file, line and error; its passing siblings and its suite are not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cmr-failures-'));
  try {
    writeFileSync(
      join(dir, 'x.test.mjs'),
      `import { test, describe } from 'node:test';
describe('outer', () => {
  test('fails', () => { throw new Error('the pixel was red'); });
  test('passes', () => {});
});
`,
    );
    const out = join(dir, 'failures.jsonl');
    const r = spawnSync(
      process.execPath,
      [
        '--test',
        `--test-reporter=${join(repoRoot, 'scripts/lib/failures.mjs')}`,
        `--test-reporter-destination=${out}`,
        'x.test.mjs',
      ],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
    assert.equal(r.status, 1, r.stderr);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; where: string; failureType: string; error: string });
    assert.equal(rows.length, 1, JSON.stringify(rows));
    assert.equal(rows[0]!.name, 'fails');
    assert.equal(rows[0]!.where, `${join(dir, 'x.test.mjs')}:3`);
    assert.equal(rows[0]!.failureType, 'testCodeFailure');
    assert.match(rows[0]!.error, /^Error: the pixel was red\n\s+at .*x\.test\.mjs:3/);
    assert.doesNotMatch(rows[0]!.error, /node:internal/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
