// `cmrender render FILE --rows rows.csv|rows.jsonl -o 'out/{name}.ext'` through the installed command (real Chromium
// and ffmpeg): a CSV's cells typed as --arg values (a Number column renders), each row's file its colour, a line per
// row and a summary; a bad row stops before anything renders, naming its row, line and column; JSON lines to videos;
// -o without {name} refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { repoRoot } from '../helpers/shared.js';
import { probe } from '../../src/render/ffmpeg/probe.js';

const CARD = `runner "0.0.3";
use std.shapes.*;
scene card(name: String = "Ana", n: Number = 1, accent: Color = #ff3399) -> Frame {
  compose [rect(width: 640px, height: 360px, fill: accent), name, n]
}
`;
let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-rows-'));
  writeFileSync(join(dir, 'card.cm'), CARD);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function cmrender(...argv: string[]) {
  return spawnSync(process.execPath, [join(repoRoot, 'bin', 'cmrender.js'), ...argv], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 180_000,
  });
}

function centre(file: string): number[] {
  const png = PNG.sync.read(readFileSync(file));
  const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
  return [...png.data.subarray(i, i + 3)];
}

test('a CSV: one PNG per row in its colour, a Number column typed as --arg is, a line per row and a summary', () => {
  writeFileSync(
    join(dir, 'rows.csv'),
    '_name,name,n,accent\nana,"Lima, Ana",3,#ff0000\nbo,Bo,4.5,#00ff00\n,"O""Brien",7,#0000ff\n',
  );
  const r = cmrender('render', 'card.cm', '--rows', 'rows.csv', '-o', 'out/{name}.png', '--width', '64');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(centre(join(dir, 'out', 'ana.png')), [255, 0, 0]);
  assert.deepEqual(centre(join(dir, 'out', 'bo.png')), [0, 255, 0]);
  // a row without a name is named by its index
  assert.deepEqual(centre(join(dir, 'out', '002.png')), [0, 0, 255]);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 4, r.stdout);
  assert.match(lines[0]!, /^\[1\/3\] ana: wrote .*ana\.png \(64x36, \d+ bytes\)/);
  assert.match(lines[3]!, /^3 of 3 rows written in .* \([\d.]+ rows per minute\)$/);
});

test('a bad row stops before anything renders, naming its row, line and column', () => {
  writeFileSync(join(dir, 'bad.csv'), 'name,accent,n\nAna,#ff0000,1\nBo,not-a-colour,2\n');
  const r = cmrender('render', 'card.cm', '--rows', 'bad.csv', '-o', 'bad/{name}.png', '--width', '64');
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /bad\.csv: row 2 \(line 3\), column accent: /);
  assert.equal(existsSync(join(dir, 'bad')), false, 'nothing rendered');
  writeFileSync(join(dir, 'typo.csv'), 'nmae\nAna\n');
  const typo = cmrender('render', 'card.cm', '--rows', 'typo.csv', '-o', 'typo/{name}.png');
  assert.equal(typo.status, 2, typo.stderr);
  assert.match(typo.stderr, /row 1 \(line 2\), column nmae: args\.nmae is not a parameter of scene 'card'/);
  const noName = cmrender('render', 'card.cm', '--rows', 'rows.csv', '-o', 'flat.png');
  assert.equal(noName.status, 2);
  assert.match(noName.stderr, /\{name\}/);
});

test('JSON lines to videos: one MP4 per row', async () => {
  writeFileSync(
    join(dir, 'rows.jsonl'),
    '{"_name": "a", "accent": "#ff0000", "n": 2}\n\n{"_name": "b", "accent": "#00ff00"}\n',
  );
  const r = cmrender(
    'render',
    'card.cm',
    '--rows',
    'rows.jsonl',
    '-o',
    'vid/{name}.mp4',
    '--width',
    '64',
    '--duration',
    '0.5',
    '--fps',
    '4',
  );
  assert.equal(r.status, 0, r.stderr);
  for (const n of ['a', 'b']) assert.equal((await probe(join(dir, 'vid', `${n}.mp4`))).frames, 2);
  assert.match(r.stdout, /2 of 2 rows written/);
});
