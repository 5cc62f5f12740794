// The CLI's manners, as a user meets them (bin/cmrender as a child process): `--help` on the command and on every
// subcommand answers usage on stdout with exit 0; `--version` says the package's version; misuse (a bare
// `cmrender`, an unknown subcommand or flag, a missing argument) answers the error and the usage on stderr, exit 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/shared.js';

const SUBCOMMANDS = ['check', 'eval', 'render', 'mesh', 'vectorize'];
const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

function cli(args: string[]) {
  return spawnSync(path.join(repoRoot, 'bin', 'cmrender'), args, { encoding: 'utf8', input: '' });
}

test('cmrender --help and -h: the usage of every subcommand on stdout, exit 0', () => {
  for (const flag of ['--help', '-h']) {
    const r = cli([flag]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    for (const s of SUBCOMMANDS) assert.match(r.stdout, new RegExp(`cmrender ${s} `), s);
  }
});

test('every subcommand answers --help with its usage on stdout, exit 0, whatever else is on the line', () => {
  for (const s of SUBCOMMANDS) {
    for (const args of [
      [s, '--help'],
      [s, '-h'],
      [s, 'scene.cm', '-o', 'x.png', '--help'],
    ]) {
      const r = cli(args);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, new RegExp(`^usage: cmrender ${s} `), args.join(' '));
    }
  }
});

test('cmrender --version says the package version', () => {
  for (const flag of ['--version', '-V']) {
    const r = cli([flag]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `cmrender ${version}\n`);
  }
});

test('misuse: the error and the usage on stderr, nothing on stdout, exit 2', () => {
  const cases: [string[], RegExp][] = [
    [[], /a subcommand is required/],
    [['bogus'], /unknown subcommand 'bogus'/],
    [['--bogus'], /unknown flag '--bogus'/],
    [['check'], /requires a source file/],
    [['check', 'a.cm', '--bogus'], /unknown flag '--bogus'/],
    [['render', 'a.cm'], /requires an output file/],
    [['render', 'a.cm', '-o', 'x.png', '--bogus', '1'], /unknown flag '--bogus'/],
    [['mesh', '--depth'], /needs a value/],
    [['vectorize'], /requires an input file/],
  ];
  for (const [args, msg] of cases) {
    const r = cli(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    assert.match(r.stderr, msg, args.join(' '));
    assert.match(r.stderr, /usage: cmrender /, args.join(' '));
  }
});
