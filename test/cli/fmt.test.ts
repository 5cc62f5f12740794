// `cmrender fmt FILE|- [--check|--write]` as a user runs it: stdout by default, --check exits 1 naming a file that
// would change (0 for a formatted one), --write rewrites it (then --check passes), `-` reads standard input, a
// source that does not parse exits 1 with its diagnostic, bad usage exits 2.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { repoRoot } from '../helpers/shared.js';

const dir = mkdtempSync(path.join(tmpdir(), 'cmrender-fmt-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const MESSY = 'runner "0.0.13";\nscene s()->Frame{\ncompose [rect( width:10px,height:10px )] // bg\n}';
const TIDY = 'runner "0.0.13";\nscene s() -> Frame {\n  compose [rect(width: 10px, height: 10px)] // bg\n}\n';

test('fmt prints the formatted source; --check names a file that would change and exits 1', () => {
  const f = path.join(dir, 'messy.cm');
  writeFileSync(f, MESSY);
  const r = run(['fmt', f]);
  assert.equal(r.code, 0);
  assert.equal(r.out + '\n', TIDY);
  const c = run(['fmt', f, '--check']);
  assert.equal(c.code, 1);
  assert.equal(c.err, `would reformat: ${f}`);
  assert.equal(readFileSync(f, 'utf8'), MESSY, '--check writes nothing');
});

test('fmt --write rewrites the file once; then --check passes and --write leaves it alone', () => {
  const f = path.join(dir, 'write.cm');
  writeFileSync(f, MESSY);
  const w = run(['fmt', '--write', f]);
  assert.equal(w.code, 0);
  assert.equal(w.out, `formatted: ${f}`);
  assert.equal(readFileSync(f, 'utf8'), TIDY);
  assert.equal(run(['fmt', '--check', f]).code, 0);
  const again = run(['fmt', '--write', f]);
  assert.equal(again.code, 0);
  assert.equal(again.out, '');
});

test('a source that does not parse exits 1 with its diagnostic; usage errors exit 2; a missing file 66', () => {
  const bad = path.join(dir, 'bad.cm');
  writeFileSync(bad, 'scene s() -> Frame { rect(width: 1px height: 2px) }');
  const b = run(['fmt', bad]);
  assert.equal(b.code, 1);
  assert.match(b.err, /^error\[PAR100\]: /);
  assert.equal(run(['fmt']).code, 2);
  assert.equal(run(['fmt', bad, bad]).code, 2);
  assert.match(run(['fmt', '--check', '--write', bad]).err, /mutually exclusive/);
  assert.match(run(['fmt', '--tidy', bad]).err, /unknown fmt flag '--tidy'/);
  assert.equal(run(['fmt', '--write', '-']).code, 2);
  assert.equal(run(['fmt', path.join(dir, 'nope.cm')]).code, 66);
});

test('the installed command formats standard input to standard output, byte for byte', () => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'cmrender.js'), 'fmt', '-'], {
    input: MESSY,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, TIDY);
});
