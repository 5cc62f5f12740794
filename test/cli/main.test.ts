// The CLI as a user runs it. Sources are our own examples or small files written here, so nothing needs the corpus.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main, parseAt } from '../../src/cli/main.js';
import { repoRoot, ownExamplesDir } from '../helpers/shared.js';

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const own = (f: string) => path.join(ownExamplesDir, f);
const dir = mkdtempSync(path.join(tmpdir(), 'cmrender-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));
/** Writes a source file and returns its path. */
function source(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}
/** Runs bin/cmrender.js as a child process (stdout and stderr are pipes, not a terminal). */
function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'cmrender.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
}

const SYNTAX = source('syntax.cm', 'use std.shapes.*;\nscene s() -> Frame {\n  rect(width: 1px height: 2px)\n}\n');
// Two errors in one file: an unknown name, then a string where a number is declared.
// no glob import: under one, an unknown name given as an argument is a warning (issue 37), and this file has two errors
const TWO = source(
  'two.cm',
  'use std.shapes.rect;\nlet n: Number = "x";\nscene s() -> Frame {\n  rect(width: nope)\n}\n',
);

test('check: clean file exits 0 and says ok; an error file exits 1', () => {
  const ok = run(['check', own('hello.cm')]);
  assert.equal(ok.code, 0);
  assert.equal(ok.out, `ok: ${own('hello.cm')}`);
  assert.equal(ok.err, '');
  assert.equal(run(['check', SYNTAX]).code, 1);
});

test('check prints file:line:col: error[CODE]: message, the source line, a caret under the span, the help, a count', () => {
  const r = cli(['check', SYNTAX]);
  assert.equal(r.status, 1);
  const lines = r.stderr.split('\n');
  assert.equal(lines[0], `${SYNTAX}:3:19: error[PAR100]: syntax error: expected ',' or ')', found 'height'`);
  assert.equal(lines[1], '  |');
  assert.equal(lines[2], '3 |   rect(width: 1px height: 2px)');
  assert.equal(lines[3], `  | ${' '.repeat(18)}^^^^^^`);
  // the caret sits under the offending word, measured in characters of the shown line
  assert.equal(lines[3].indexOf('^') - 4, lines[2].slice(4).indexOf('height'));
  assert.ok(
    lines.some((l) => l.startsWith('  = help: ')),
    r.stderr,
  );
  assert.equal(lines.filter((l) => l !== '').at(-1), '1 error');
});

test('the caret counts characters, not bytes, when multi-byte text comes before the error', () => {
  // "héllo ✓ ü" is 9 characters but 13 bytes: the diagnostic's column counts bytes, the caret characters.
  const p = source(
    'utf8.cm',
    'use std.shapes.*;\nscene s() -> Frame {\n  compose [rect(fill: "héllo ✓ ü"), bogus]\n}\n',
  );
  const r = cli(['check', p]);
  assert.equal(r.status, 1);
  const lines = r.stderr.split('\n');
  const m = /^.*:3:(\d+): error\[NAM003\]: unknown identifier 'bogus'/.exec(lines[0]!);
  assert.ok(m, lines[0]);
  const shown = lines[2]!.slice(4);
  assert.equal(shown, '  compose [rect(fill: "héllo ✓ ü"), bogus]');
  const at = shown.indexOf('bogus');
  assert.equal(Number(m[1]) - 1, Buffer.byteLength(shown.slice(0, at)), 'the column is a byte count');
  assert.ok(Number(m[1]) - 1 > at);
  assert.equal(lines[3], `  | ${' '.repeat(at)}^^^^^`);
});

test('wide (CJK) characters before the error take two cells each in the padding', () => {
  const p = source('wide.cm', 'use std.shapes.*;\nscene s() -> Frame {\n  compose [rect(fill: "日本"), bogus]\n}\n');
  const lines = cli(['check', p]).stderr.split('\n');
  const shown = lines[2]!.slice(4);
  assert.equal(shown, '  compose [rect(fill: "日本"), bogus]');
  // two wide characters: two cells more than their character count
  assert.equal(lines[3], `  | ${' '.repeat(shown.indexOf('bogus') + 2)}^^^^^`);
});

test('two errors: both shown in order, then "2 errors"', () => {
  const r = cli(['check', TWO]);
  assert.equal(r.status, 1);
  const heads = r.stderr.split('\n').filter((l) => l.startsWith(TWO + ':'));
  assert.equal(heads.length, 2, r.stderr);
  assert.match(heads[0]!, /:2:\d+: error\[[A-Z]{3}\d{3}\]: /);
  assert.match(heads[1]!, /:4:\d+: error\[NAM003\]: /);
  assert.equal(r.stderr.trimEnd().split('\n').at(-1), '2 errors');
});

test('no colour codes when output is not a terminal, nor when NO_COLOR is set; colour only when asked', () => {
  assert.doesNotMatch(cli(['check', TWO]).stderr, /\x1b\[/);
  assert.doesNotMatch(cli(['check', TWO], { NO_COLOR: '1' }).stderr, /\x1b\[/);
  const coloured = main(['check', TWO], {
    out: () => {},
    err: (s) => assert.match(s, /\x1b\[|^\d+ errors?$/),
    colour: true,
  });
  assert.equal(coloured, 1);
});

test('check --json prints the envelope, unchanged', () => {
  const r = run(['check', TWO, '--json']);
  assert.equal(r.code, 1);
  const env = JSON.parse(r.out);
  // plus `scene` (issue 50): the signature of the scene a render uses, null when none does
  assert.deepEqual(Object.keys(env), ['schemaVersion', 'ok', 'diagnostics', 'path', 'scene', 'timing']);
  assert.equal(env.ok, false);
  assert.equal(env.diagnostics.length, 2);
  assert.deepEqual(Object.keys(env.diagnostics[1]).slice(0, 6), [
    'severity',
    'code',
    'message',
    'line',
    'column',
    'length',
  ]);
  assert.equal(r.err, '');
});

test('eval prints the scene value at --at', () => {
  const r = run(['eval', own('bounce.cm'), '--at', '0.3']);
  assert.equal(r.code, 0);
  const v = JSON.parse(r.out);
  assert.equal(v.name, 'compose');
  const j = run(['eval', own('story.cm'), '--at', '1500ms', '--json']);
  const env = JSON.parse(j.out);
  assert.equal(env.ok, true);
  assert.equal(env.at, 1.5);
  assert.equal(env.durationSeconds, 10);
  assert.equal(env.value.kind, 'constructed');
});

test('usage errors and unreadable files', () => {
  assert.equal(run([]).code, 2);
  assert.equal(run(['frob']).code, 2);
  assert.equal(run(['check']).code, 2);
  assert.equal(run(['eval', own('hello.cm'), '--at', 'soon']).code, 2);
  assert.equal(run(['check', own('hello.cm'), '--nope']).code, 2);
  assert.equal(run(['check', own('does-not-exist.cm')]).code, 66);
  assert.equal(parseAt('1.5'), 1.5);
  assert.equal(parseAt('250ms'), 0.25);
  assert.equal(parseAt('-1'), null);
});

test('check: a library warning exits 0 and is printed; --strict exits 1 on it; a clean source passes --strict', () => {
  const warned = source(
    'widht.cm',
    'runner "0.0.13";\nscene s() -> Frame {\n  compose [rect(width: 640px, height: 360px), rect(widht: 300px)]\n}\n',
  );
  const r = run(['check', warned]);
  assert.equal(r.code, 0);
  assert.match(r.err, /warning\[LIB001\]: 'rect' has no argument 'widht'; did you mean 'width'\?/);
  assert.match(r.out, /^ok: /);
  const strict = run(['check', warned, '--strict']);
  assert.equal(strict.code, 1);
  assert.match(strict.err, /LIB001/);
  assert.equal(strict.out, '');
  const json = run(['check', '--strict', '--json', warned]);
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.out).ok, true, 'the envelope still says it compiles');
  assert.equal(run(['check', '--strict', own('hello.cm')]).code, 0);
  assert.equal(run(['eval', '--strict', own('hello.cm')]).code, 2, '--strict is a flag of check only');
});

test('render: a missing image (ASS001) says how to give the CLI the file, --asset PATH=FILE', () => {
  const file = source(
    'photo.cm',
    'runner "0.0.13";\nscene s() -> Frame {\n  compose [image("/img/photo.png").fit(cover)]\n}\n',
  );
  const r = cli(['render', file, '-o', path.join(dir, 'photo.png')]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /photo\.cm:3:18 ASS001 image "\/img\/photo\.png" is not an uploaded asset/);
  assert.match(r.stderr, /help: give the image's file with --asset \/img\/photo\.png=FILE/);
});
