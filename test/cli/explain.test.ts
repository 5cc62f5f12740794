// `cmrender explain CODE`: the registry's explanation of a code, as text or JSON; an unknown code exits 1 naming the
// known ones; a missing code is a usage error. The installed command (bin/cmrender.js) answers the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { diagnosticDoc } from '../../src/lang/diagnostic-docs.js';
import { repoRoot } from '../helpers/shared.js';

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('explain CODE prints the title, the explanation and the wrong and right sources', () => {
  const r = run(['explain', 'NAM004']);
  assert.equal(r.code, 0);
  const d = diagnosticDoc('NAM004')!;
  assert.ok(r.out.startsWith('NAM004: Forward reference (error, found while checking)\n'), r.out);
  assert.ok(r.out.includes(d.explanation));
  assert.match(r.out, /\nWrong:\n\n {4}runner "0\.0\.13";\n[\s\S]* {6}let h = w \/ 2;\n[\s\S]*\nRight:\n/);
  // the code in any case
  assert.equal(run(['explain', 'nam004']).out, r.out);
});

test('explain ASS001 shows its source once and says what makes it right: the image given, --asset on the CLI', () => {
  const r = run(['explain', 'ASS001']);
  assert.equal(r.code, 0);
  assert.equal(r.out.split('image("/img/photo.png")').length - 1, 1, r.out);
  assert.match(r.out, /\nWrong \(no assets\):\n/);
  assert.match(r.out, /\nRight: the same source, with .*--asset \/img\/photo\.png=\.\/photo\.png/);
});

test('explain --json gives the registry entry and its docs path', () => {
  const r = run(['explain', 'EVL004', '--json']);
  assert.equal(r.code, 0);
  const j = JSON.parse(r.out);
  assert.deepEqual(j, { ...diagnosticDoc('EVL004'), docs: '/v1/diagnostics/EVL004' });
});

test('an unknown code exits 1 naming the known codes; no code or two codes is a usage error', () => {
  const u = run(['explain', 'XYZ999']);
  assert.equal(u.code, 1);
  assert.match(u.err, /no explanation registered for 'XYZ999' \(known codes: PAR100, .*NAM003/);
  assert.equal(run(['explain']).code, 2);
  assert.match(run(['explain']).err, /`explain` requires a diagnostic code/);
  assert.equal(run(['explain', 'NAM003', 'NAM004']).code, 2);
  assert.equal(run(['explain', '--yaml', 'NAM003']).code, 2);
});

test('the installed command explains too', () => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'cmrender.js'), 'explain', 'REN001'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^REN001: No scene to render/);
});
