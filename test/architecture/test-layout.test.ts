// test/ mirrors the code folder by folder (docs/architecture.md "Tests", CONTRIBUTING.md): every test file sits in
// the test folder of a code folder (test/<room>/<folder>/ for src/<room>/<folder>/, test/viewer/ and test/editor/ for
// viewer/src/ and editor/src/, test/scripts/ for scripts/) or in one of the few homes of tests that span rooms, listed
// below with the reason each exists. A test dropped in a folder that mirrors nothing fails here, so the mirror stays
// true as the code moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../../src/paths.js';

/** Test folders with no code folder of their own: what each gathers, and why it cannot sit beside one module. */
const CROSS_CUTTING: Record<string, string> = {
  'test/architecture': "the import rules and the repository's shape, read across every room",
  'test/docs': "the README's code blocks, run against the built service",
  'test/corpus': 'our own compatibility corpus of .cm scenes (data, read by test/lang and test/render)',
  'test/helpers': 'what tests of several rooms share (a started app, the job client, a spawned service)',
};

/** The code folder a test folder mirrors (whether or not it exists). */
function codeFolderOf(testDir: string): string {
  const [, room, ...rest] = testDir.split('/');
  if (room === 'viewer') return ['viewer', 'src', ...rest].join('/');
  if (room === 'editor') return ['editor', 'src', ...rest].join('/');
  if (room === 'scripts') return ['scripts', ...rest].join('/');
  return ['src', room, ...rest].filter((s) => s !== undefined).join('/');
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...testFiles(p));
    else if (name.endsWith('.test.ts')) out.push(relative(repoRoot, p));
  }
  return out;
}

test('every test file sits in the test folder of a code folder, or in a listed cross-cutting home', () => {
  const misplaced = testFiles(join(repoRoot, 'test')).filter((file) => {
    const dir = file.slice(0, file.lastIndexOf('/'));
    if (Object.keys(CROSS_CUTTING).some((home) => dir === home || dir.startsWith(`${home}/`))) return false;
    return !existsSync(join(repoRoot, codeFolderOf(dir)));
  });
  assert.deepEqual(misplaced, [], 'test files in a folder that mirrors no code folder (move each beside its module)');
});

test('each cross-cutting home exists and has no code folder it should mirror instead', () => {
  for (const home of Object.keys(CROSS_CUTTING)) {
    assert.ok(existsSync(join(repoRoot, home)), `${home} is listed but gone: drop it from CROSS_CUTTING`);
    assert.ok(!existsSync(join(repoRoot, codeFolderOf(home))), `${home} mirrors ${codeFolderOf(home)}: unlist it`);
  }
});
