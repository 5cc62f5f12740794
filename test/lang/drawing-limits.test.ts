// What one frame may ask the drawing page to build (src/lang/drawing-limits.ts): each limit at its edge and one past
// it, through check() (the POST /v1/check envelope), with its own code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  check,
  glyphVertexBound,
  MAX_GLYPH_OUTLINES,
  MAX_GLYPH_VERTICES,
  MAX_METABALLS,
  MAX_PATH_POINTS,
  MAX_SHAPES,
} from '../../src/lang/index.js';
import { glyphBombScene, longTextScene } from '../render/compat-scenes.js';

const HEAD = 'runner "0.0.3";\nuse std.shapes.*;\nuse std.mesh3d.*;\nuse std.text;\nuse std.scene3d.*;\n';
const codes = (src: string) =>
  check(src)
    .diagnostics.filter((d) => d.severity === 'error')
    .map((d) => d.code);

/** n rects as one array literal */
const shapes = (n: number) =>
  `${HEAD}scene s() -> Frame {\n  compose [${Array.from({ length: n }, () => 'rect(width: 2px, height: 2px)').join(', ')}]\n}\n`;
const glyphs = (n: number) =>
  `${HEAD}scene s() -> Frame {\n  render3d(extrude(text.glyph("${'ab'.repeat(n).slice(0, n)}", size: 20px), depth: 4px))\n}\n`;
const points = (n: number) => {
  const pts = Array.from(
    { length: n },
    (_, i) =>
      `vec2(${Math.round(100 * Math.cos((2 * Math.PI * i) / n))}px, ${Math.round(100 * Math.sin((2 * Math.PI * i) / n))}px)`,
  );
  return `${HEAD}scene s() -> Frame {\n  render3d(extrude(path([${pts.join(', ')}]), depth: 4px))\n}\n`;
};
const blobs = (n: number) =>
  `${HEAD}scene s() -> Frame {\n  render3d(metaballs([${Array.from({ length: n }, (_, i) => `blob(at: vec3(${i}px, 0px, 0px), radius: 10px)`).join(', ')}], smoothing: 10px))\n}\n`;

test(`shapes: ${MAX_SHAPES} per frame pass, one more is EVL012`, () => {
  assert.deepEqual(codes(shapes(MAX_SHAPES)), []);
  assert.deepEqual(codes(shapes(MAX_SHAPES + 1)), ['EVL012']);
});

/** n distinct outlines: one character at n different sizes */
const outlines = (n: number) =>
  `${HEAD}scene s() -> Frame {\n  render3d(compose [${Array.from({ length: n }, (_, i) => `extrude(text.glyph("a", size: ${i + 1}px), depth: 4px)`).join(', ')}])\n}\n`;

test(`text.glyph counts what the page builds: ${MAX_GLYPH_OUTLINES} distinct outlines pass, one more is EVL009`, () => {
  assert.deepEqual(codes(outlines(MAX_GLYPH_OUTLINES)), []);
  assert.deepEqual(codes(outlines(MAX_GLYPH_OUTLINES + 1)), ['EVL009']);
  assert.match(check(outlines(MAX_GLYPH_OUTLINES + 1)).diagnostics[0]!.message, /more than 256 glyph outlines/);
});

test('text.glyph counts the vertices it draws: characters up to the vertex bound pass, one more is EVL009', () => {
  const n = Math.floor(MAX_GLYPH_VERTICES / glyphVertexBound(20, false));
  assert.deepEqual(codes(glyphs(n)), []);
  assert.deepEqual(codes(glyphs(n + 1)), ['EVL009']);
  assert.match(check(glyphs(n + 1)).diagnostics[0]!.message, /glyphs draw more than 32 million vertices/);
  // issue 37: a page of ordinary text, 4,000 characters of 16 px in 50 lines, is within both bounds
  assert.deepEqual(codes(longTextScene(4000)), []);
  // round 1's bomb (one 62,000-character string) stays refused with its code
  assert.deepEqual(codes(glyphBombScene(62_000)), ['EVL009']);
});

test("a frame's text is built at the reference's sampling while it fits the vertex budget, in proportion past it", async () => {
  const { drawingCost } = await import('../../src/lang/drawing-limits.js');
  const { glyphDetail } = await import('../../src/lang/glyph-detail.js');
  const { compile } = await import('../../src/lang/index.js');
  const cost = (src: string) => drawingCost(compile(src).program!.sceneAt(0).value!);
  // issue 56: small text gets the reference's 32 curve and 4 bevel segments whenever the frame's text fits
  const fit = Math.floor(MAX_GLYPH_VERTICES / glyphVertexBound(20, true));
  assert.equal(cost(glyphs(fit)).glyphVertices, fit * glyphVertexBound(20, true));
  assert.deepEqual(glyphDetail(20, true), { curveSegments: 32, bevelSegments: 4 });
  // one character more: the frame's text under 96 px is sampled in proportion, and counted so
  assert.equal(cost(glyphs(fit + 1)).glyphVertices, (fit + 1) * glyphVertexBound(20, false));
  assert.ok(glyphVertexBound(20, false) < glyphVertexBound(20, true) / 10);
  assert.deepEqual(codes(glyphs(fit + 1)), []);
});

test(`path points (mesh vertices): ${MAX_PATH_POINTS} per frame pass, one more is EVL010`, () => {
  assert.deepEqual(codes(points(MAX_PATH_POINTS)), []);
  assert.deepEqual(codes(points(MAX_PATH_POINTS + 1)), ['EVL010']);
});

test(`metaballs: ${MAX_METABALLS} blobs per frame pass, one more is EVL011`, () => {
  assert.deepEqual(codes(blobs(MAX_METABALLS)), []);
  assert.deepEqual(codes(blobs(MAX_METABALLS + 1)), ['EVL011']);
});

test('a limit passed only later in a clip is reported by that frame (sceneAt), not at compile', async () => {
  const { compile } = await import('../../src/lang/index.js');
  const src = `${HEAD}use std.anim.*;\nscene s(duration: Duration = 2s) -> Frame {\n  let n = animate { 0s => 0, 1s => 1 };\n  render3d(extrude(text.glyph(if n > 0.5 { "${'x'.repeat(62_000)}" } else { "ok" }, size: 20px), depth: 4px))\n}\n`;
  const c = compile(src);
  assert.equal(c.ok, true, JSON.stringify(c.diagnostics));
  assert.deepEqual(
    c.program!.sceneAt(1.5).diagnostics.map((d) => d.code),
    ['EVL009'],
  );
});
