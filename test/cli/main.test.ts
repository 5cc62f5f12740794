import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { main, parseAt } from '../../src/cli/main';
import { repoRoot, shared } from '../lang/helpers';

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const ex = (f: string) => path.join(shared, 'examples', f);

test('check: clean file exits 0, error file exits 1 with human diagnostics', () => {
  const ok = run(['check', ex('title.cm')]);
  assert.equal(ok.code, 0);
  assert.match(ok.out, /^ok: /);
  const bad = run(['check', ex('errors/syntax.cm')]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /^error\[PAR100\]: syntax error: expected ',' or '\)', found 'fill'\n  .*syntax\.cm:5:45/);
});

test('check --json prints the envelope', () => {
  const r = run(['check', ex('errors/unknown-ident.cm'), '--json']);
  assert.equal(r.code, 1);
  const env = JSON.parse(r.out);
  assert.deepEqual(Object.keys(env), ['schemaVersion', 'ok', 'diagnostics', 'path', 'timing']);
  assert.equal(env.ok, false);
  assert.equal(env.diagnostics[0].code, 'NAM003');
});

test('eval prints the scene value at --at', () => {
  const r = run(['eval', ex('bouncing-ball.cm'), '--at', '0.3']);
  assert.equal(r.code, 0);
  const v = JSON.parse(r.out);
  assert.equal(v.name, 'compose');
  const j = run(['eval', ex('homepage.cm'), '--at', '1500ms', '--json']);
  const env = JSON.parse(j.out);
  assert.equal(env.ok, true);
  assert.equal(env.at, 1.5);
  assert.equal(env.value.kind, 'constructed');
});

test('usage errors and unreadable files', () => {
  assert.equal(run([]).code, 2);
  assert.equal(run(['frob']).code, 2);
  assert.equal(run(['check']).code, 2);
  assert.equal(run(['eval', ex('title.cm'), '--at', 'soon']).code, 2);
  assert.equal(run(['check', ex('title.cm'), '--nope']).code, 2);
  assert.equal(run(['check', ex('does-not-exist.cm')]).code, 66);
  assert.equal(parseAt('1.5'), 1.5);
  assert.equal(parseAt('250ms'), 0.25);
  assert.equal(parseAt('-1'), null);
});

test('bin/cmrender.js runs the CLI', () => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'cmrender.js'), 'check', ex('errors/type-mismatch.cm')], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /error\[TYP002\]/);
});
