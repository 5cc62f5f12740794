// The local renders and exports of the CLI, run as a child process the way a user runs them: each output kind
// written and probed (PNG header, MP4 and GIF frame counts, a .glb the Khronos validator accepts, an SVG), a
// compile error's diagnostic and exit status, an unknown output extension.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { probe } from '../../src/render/ffmpeg/probe.js';
import { repoRoot } from '../helpers/shared.js';
import { errorsOf, validate } from '../export/helpers.js';

const SLIDE = `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene slide(duration: Duration = 1s) -> Frame {
  let x = animate { 0s => -600px, 1s => 600px };
  let bg = rect(width: 1920px, height: 1080px, fill: #f4efe6);
  let a = rect(width: 320px, height: 320px, fill: #ff3399).translate(x: x);
  compose [bg, a]
}
`;
// no glob import: under one, an unknown name given as an argument is a warning and the job renders (issue 37)
const BROKEN = `runner "0.0.3";
use std.shapes.rect;
scene broken() -> Frame {
  rect(width: 10px, height: 10px, fill: nope)
}
`;
const DRAWING_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><path d="M10 10 H90 V90 H10 Z M30 30 V70 H70 V30 Z" fill="#000"/></svg>`;

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cmrender-cli-'));
  writeFileSync(join(dir, 'slide.cm'), SLIDE);
  writeFileSync(join(dir, 'broken.cm'), BROKEN);
  writeFileSync(join(dir, 'drawing.svg'), DRAWING_SVG);
  // a line drawing: dark ink strokes on light paper
  const png = new PNG({ width: 120, height: 80 });
  png.data.fill(255);
  const ink = (x: number, y: number) => png.data.fill(0, (y * 120 + x) * 4, (y * 120 + x) * 4 + 3);
  for (let x = 10; x < 110; x++) for (let y = 38; y < 42; y++) ink(x, y);
  for (let y = 10; y < 70; y++) for (let x = 58; x < 62; x++) ink(x, y);
  writeFileSync(join(dir, 'sketch.png'), PNG.sync.write(png));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'cmrender.js'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('render -o out.png: a PNG of the asked size at --at', () => {
  const r = cli('render', 'slide.cm', '-o', 'out.png', '--at', '500ms', '--width', '320');
  assert.equal(r.status, 0, r.stderr);
  const bytes = readFileSync(join(dir, 'out.png'));
  assert.ok(
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
    'PNG signature',
  );
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR');
  assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [320, 180]);
  assert.match(r.stdout, /wrote .*out\.png \(320x180/);
});

test('render -o out.mp4 --duration --fps: an H.264 MP4 with duration × fps frames, progress on stderr', async () => {
  const r = cli('render', 'slide.cm', '-o', 'out.mp4', '--duration', '1', '--fps', '12', '--width', '320');
  assert.equal(r.status, 0, r.stderr);
  const p = await probe(join(dir, 'out.mp4'));
  assert.deepEqual([p.codec, p.width, p.height, p.frames], ['h264', 320, 180, 12]);
  // not a terminal here: plain lines, no carriage returns, ending with all frames done
  assert.doesNotMatch(r.stderr, /\r/);
  assert.match(r.stderr, /out\.mp4: 100% \(12\/12 frames\), done/);
});

test('render -o out.webm (VP9; --codec av1 for AV1) and -o out.jpg --quality: the codec and format follow the extension', async () => {
  const r = cli('render', 'slide.cm', '-o', 'out.webm', '--duration', '0.5', '--fps', '10', '--width', '160');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual((await probe(join(dir, 'out.webm'))).codec, 'vp9');
  const av1 = cli(
    'render',
    'slide.cm',
    '-o',
    'av1.webm',
    '--codec',
    'av1',
    '--duration',
    '0.5',
    '--fps',
    '10',
    '--width',
    '160',
  );
  assert.equal(av1.status, 0, av1.stderr);
  assert.deepEqual((await probe(join(dir, 'av1.webm'))).codec, 'av1');
  const jpg = cli('render', 'slide.cm', '-o', 'out.jpg', '--quality', '80', '--width', '160');
  assert.equal(jpg.status, 0, jpg.stderr);
  assert.deepEqual([...readFileSync(join(dir, 'out.jpg')).subarray(0, 3)], [0xff, 0xd8, 0xff]);
});

test('render -o out.gif: a looping GIF, 480 wide by default', async () => {
  const r = cli('render', 'slide.cm', '-o', 'out.gif', '--duration', '0.5', '--fps', '10');
  assert.equal(r.status, 0, r.stderr);
  const p = await probe(join(dir, 'out.gif'));
  assert.deepEqual([p.codec, p.width, p.height, p.frames], ['gif', 480, 270, 5]);
  assert.ok(readFileSync(join(dir, 'out.gif')).includes(Buffer.from('NETSCAPE2.0')), 'the loop extension');
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('out.gif.')),
    [],
    'no temporary file left',
  );
});

test('mesh -o out.glb: a binary glTF with no validator error', async () => {
  const r = cli('mesh', 'drawing.svg', '-o', 'out.glb', '--depth', '10', '--size', '50');
  assert.equal(r.status, 0, r.stderr);
  const glb = readFileSync(join(dir, 'out.glb'));
  assert.equal(glb.toString('latin1', 0, 4), 'glTF');
  const report = await validate(glb);
  assert.equal(report.issues.numErrors, 0, errorsOf(report));
});

test('vectorize -o out.svg: a centreline SVG that mesh accepts', async () => {
  const r = cli('vectorize', 'sketch.png', '-o', 'out.svg', '--stroke-width', '3');
  assert.equal(r.status, 0, r.stderr);
  const svg = readFileSync(join(dir, 'out.svg'), 'utf8');
  assert.match(svg, /^<svg[^>]* stroke-width="3"[^>]*><path d="M /, 'one path, the asked stroke width');
  const m = cli('mesh', 'out.svg', '-o', 'sketch.glb');
  assert.equal(m.status, 0, m.stderr);
  assert.equal((await validate(readFileSync(join(dir, 'sketch.glb')))).issues.numErrors, 0);
});

test('a compile error: exit 1 with file:line:col CODE message, nothing written', () => {
  const r = cli('render', 'broken.cm', '-o', 'broken.png');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^broken\.cm:4:41 NAM003 unknown identifier 'nope'$/m);
  assert.equal(existsSync(join(dir, 'broken.png')), false);
});

test('an unknown output extension or a limit past its edge: exit 2 with a clear message', () => {
  const r = cli('render', 'slide.cm', '-o', 'out.avi');
  assert.equal(r.status, 2);
  assert.match(
    r.stderr,
    /unknown output extension '\.avi'; use \.png, \.jpg or \.webp \(a frame\), \.mp4, \.webm or \.mov \(a video\) or \.gif/,
  );
  const wrongCodec = cli('render', 'slide.cm', '-o', 'out.mp4', '--codec', 'vp9');
  assert.equal(wrongCodec.status, 2);
  assert.match(wrongCodec.stderr, /codec vp9 is written as \.webm, not \.mp4/);
  const quality = cli('render', 'slide.cm', '-o', 'out.jpg', '--quality', '101');
  assert.equal(quality.status, 2);
  assert.match(quality.stderr, /quality 101 is outside 0\.\.100/);
  assert.equal(cli('mesh', 'drawing.svg', '-o', 'out.obj').status, 2);
  assert.equal(cli('vectorize', 'sketch.png', '-o', 'out.png').status, 2);
  const fps = cli('render', 'slide.cm', '-o', 'out.gif', '--fps', '31');
  assert.equal(fps.status, 2);
  assert.match(fps.stderr, /fps 31 is outside 1\.\.30/);
});
