// Scene arguments on the command line: `--arg name=value` typed by the parameter's declared type, `--arg-json`,
// `--args FILE.json` (later flags over it), `eval --json` holding the exact string, `check --json` the signature,
// `cmrender schema FILE`, bad args exiting 1 with the language's message, and `render` drawing the args (real
// Chromium, through the installed command).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { main } from '../../src/cli/main.js';
import { stripQuotes, type Value } from '../../src/lang/index.js';
import { repoRoot } from '../helpers/shared.js';

const CARD = `runner "0.0.3";
use std.shapes.*;
scene card(name: String = "Ana", n: Number = 1, big: Bool = false, tags: List<String> = [], accent: Color = #ff3399) -> Frame {
  compose [rect(width: 640px, height: 360px, fill: accent), name, n, big, tags]
}
`;
let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-args-'));
  writeFileSync(join(dir, 'card.cm'), CARD);
  writeFileSync(join(dir, 'args.json'), JSON.stringify({ name: 'Bo', n: 7, accent: '#0000ff' }));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  assert.equal(typeof code, 'number');
  return { code: code as number, out: out.join('\n'), err: err.join('\n') };
}

/** The layers of the evaluated compose: [rect, name, n, big, tags]. */
function layers(out: string): Value[] {
  const v = JSON.parse(out).value as Value;
  assert.equal(v.kind, 'constructed');
  const l = (v as Extract<Value, { kind: 'constructed' }>).fields[0]!.value;
  assert.equal(l.kind, 'array');
  return (l as Extract<Value, { kind: 'array' }>).elems;
}

test('eval --json with --arg: each value typed by its declared type; the string holds exactly its characters', () => {
  const name = 'O"Brien \\ }; compose [] //';
  const r = run('eval', join(dir, 'card.cm'), '--json', '--arg', `name=${name}`, '--arg', 'n=3', '--arg=big=true');
  assert.equal(r.code, 0, r.err);
  const [, s, n, big] = layers(r.out);
  assert.equal(s!.kind, 'string');
  assert.equal(stripQuotes((s as { raw: string }).raw), name);
  assert.deepEqual(n, { kind: 'number', value: 3, unit: null });
  assert.deepEqual(big, { kind: 'bool', value: true });
  assert.deepEqual(JSON.parse(r.out).args, { name, n: 3, big: true });
});

test('--args FILE.json, then --arg and --arg-json over it in order; a List --arg read as JSON', () => {
  const r = run(
    'eval',
    join(dir, 'card.cm'),
    '--json',
    '--args',
    join(dir, 'args.json'),
    '--arg',
    'n=8',
    '--arg-json',
    'name="Cy"',
    '--arg',
    'tags=["a","b"]',
  );
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out).args, { name: 'Cy', n: 8, accent: '#0000ff', tags: ['a', 'b'] });
  const [rect] = layers(r.out);
  assert.match(JSON.stringify(rect), /"digits":"0000ff"/);
});

test('check --json answers the signature and the JSON Schema; bad args exit 1 with one line per problem', () => {
  const ok = run('check', join(dir, 'card.cm'), '--json');
  assert.equal(ok.code, 0);
  const scene = JSON.parse(ok.out).scene;
  assert.equal(scene.name, 'card');
  assert.deepEqual(
    scene.params.map((p: { name: string; type: string }) => `${p.name}: ${p.type}`),
    ['name: String', 'n: Number', 'big: Bool', 'tags: List<String>', 'accent: Color'],
  );
  assert.equal(scene.schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  const bad = run('check', join(dir, 'card.cm'), '--arg', 'nme=x', '--arg', 'n=three');
  assert.equal(bad.code, 1);
  assert.equal(
    bad.err,
    [
      `${join(dir, 'card.cm')}: error[invalid_args]: args.nme is not a parameter of scene 'card'; did you mean 'name'?`,
      `${join(dir, 'card.cm')}: error[invalid_args]: args.n must be a number (Number); got the string "three"`,
    ].join('\n'),
  );
  const badJson = run('check', join(dir, 'card.cm'), '--json', '--arg', 'big=yes');
  assert.equal(badJson.code, 1);
  assert.deepEqual(
    JSON.parse(badJson.out).argProblems.map((p: { path: string }) => p.path),
    ['args.big'],
  );
});

test('schema FILE prints the JSON Schema of the args; flags written wrong are usage errors', () => {
  const r = run('schema', join(dir, 'card.cm'));
  assert.equal(r.code, 0);
  const schema = JSON.parse(r.out);
  assert.deepEqual(Object.keys(schema.properties), ['name', 'n', 'big', 'tags', 'accent']);
  assert.equal(schema.properties.accent.default, '#ff3399');
  assert.equal(run('schema', join(dir, 'card.cm'), '--arg', 'name').code, 2);
  assert.equal(run('eval', join(dir, 'card.cm'), '--arg-json', 'name={').code, 2);
  assert.equal(run('eval', join(dir, 'card.cm'), '--args', join(dir, 'missing.json')).code, 66);
  writeFileSync(join(dir, 'noscene.cm'), 'let x = 1;\n');
  const none = run('schema', join(dir, 'noscene.cm'));
  assert.equal(none.code, 1);
  assert.match(none.err, /no scene to render/);
});

test('render --arg draws the args (the installed command, real Chromium)', () => {
  const r = spawnSync(
    process.execPath,
    [
      join(repoRoot, 'bin', 'cmrender.js'),
      'render',
      'card.cm',
      '-o',
      'g.png',
      '--width',
      '64',
      '--arg',
      'accent=#00ff00',
    ],
    { cwd: dir, encoding: 'utf8', timeout: 180_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  const png = PNG.sync.read(readFileSync(join(dir, 'g.png')));
  const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
  assert.deepEqual([...png.data.subarray(i, i + 3)], [0, 255, 0]);
  const bad = spawnSync(
    process.execPath,
    [join(repoRoot, 'bin', 'cmrender.js'), 'render', 'card.cm', '-o', 'b.png', '--arg', 'acent=#00ff00'],
    { cwd: dir, encoding: 'utf8', timeout: 180_000 },
  );
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /invalid_args args\.acent is not a parameter of scene 'card'; did you mean 'accent'\?/);
});
