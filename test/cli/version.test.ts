// `cmrender version [--json]`: the package's version, the runners this build renders and the newest, and Node's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { availableVersions, newestRunner } from '../../src/lang/index.js';
import { repoRoot } from '../helpers/shared.js';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('version --json gives the package version, the runners and the newest, and the Node version', () => {
  const r = run(['version', '--json']);
  assert.equal(r.code, 0);
  assert.deepEqual(JSON.parse(r.out), {
    name: 'cmrender',
    version: pkg.version,
    runners: availableVersions(),
    newestRunner: newestRunner(),
    node: process.version,
  });
});

test('version says the same in words; an extra argument is a usage error', () => {
  const r = run(['version']);
  assert.equal(r.code, 0);
  assert.ok(
    r.out.startsWith(`cmrender ${pkg.version}\nrunners: ${availableVersions().join(', ')} (newest ${newestRunner()}`),
  );
  assert.equal(run(['version', '--yaml']).code, 2);
});

test('the installed command answers version', () => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'cmrender.js'), 'version', '--json'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).version, pkg.version);
});
