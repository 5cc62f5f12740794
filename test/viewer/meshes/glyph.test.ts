import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { glyphGeometry } from '../../../viewer/src/meshes/index.js';
import { bbox, capArea, font, near, P2W, polygonArea, VH } from './helpers.js';

const base = { depthPx: 16, p2w: P2W, frameWidthPx: 1920, runner: '0.0.3' };

test('em factor of DM Sans Bold is 1000 / (992 + 310)', () => {
  const f = font();
  assert.equal(f.unitsPerEm, 1000);
  assert.equal(f.tables.hhea.ascender, 992);
  assert.equal(f.tables.hhea.descender, -310);
});

test('size: S px is pixel-true: 1 em = S·0.768049 px; cap height 700 units; depth and bevel from D', () => {
  const S = 430,
    D = 43;
  const g = glyphGeometry(font(), { ...base, text: 'H', sizePx: S, depthPx: D });
  const b = bbox(g);
  const k = S * (1000 / 1302) * P2W; // world per em
  const bevel = 0.3 * D * P2W;
  // H: cap height 0.700 em, flat top/bottom; the side walls are pushed out by the bevel size on each side.
  near(b.max.y - b.min.y, 0.7 * k + 2 * bevel, 1e-3 * k, 'H height');
  // total thickness = D + 2·0.3·D px (title: 43 px → 68.8 px)
  near((b.max.z - b.min.z) / P2W, 68.8, 1e-3, 'thickness in px');
  // centred on its own box in x, y, z
  for (const ax of ['x', 'y', 'z'] as const) near(b.min[ax] + b.max[ax], 0, 1e-6, `centre ${ax}`);
});

test('size: the ascender-descender span of S px is S·p2w world', () => {
  // "Éj" reaches from near the ascender to near the descender; the exact span is em-factor · (asc − desc).
  const S = 200;
  const k = S * (1000 / 1302) * P2W;
  near((k * (992 + 310)) / 1000, S * P2W, 1e-12, 'span');
  const g = glyphGeometry(font(), { ...base, text: 'É', sizePx: S });
  const b = bbox(g);
  assert.ok(b.max.y - b.min.y < S * P2W, 'a single accented capital is shorter than the full span');
});

test('auto-fit: 2.5 world per em, homepage "C" box is 0.724 (tall) × 0.647 em plus 0.04 em bevel each side', () => {
  const g = glyphGeometry(font(), { ...base, text: 'C', sizePx: null });
  const b = bbox(g);
  near(b.max.y - b.min.y, (0.724 + 0.08) * 2.5, 0.01, 'C height');
  near(b.max.x - b.min.x, (0.647 + 0.08) * 2.5, 0.02, 'C width');
  near(b.max.z - b.min.z, 16 * 0.025 + 2 * 0.04, 1e-6, 'C thickness (not tied to p2w)');
  for (const ax of ['x', 'y', 'z'] as const) near(b.min[ax] + b.max[ax], 0, 1e-6, `centre ${ax}`);
});

test('auto-fit shrinks a long string to 82 % of the frame width', () => {
  const g = glyphGeometry(font(), { ...base, text: 'cmotion renders', sizePx: null });
  const b = bbox(g);
  const maxW = 0.82 * VH * (1920 / 1080);
  near(b.max.x - b.min.x, maxW, 1e-5, 'fitted width');
  const sq = glyphGeometry(font(), { ...base, text: 'cmotion renders', sizePx: null, frameWidthPx: 1080 });
  const bs = bbox(sq);
  near(bs.max.x - bs.min.x, 0.82 * VH, 1e-5, 'fitted width, square frame');
  // height scales with the same k, z does not
  near(b.max.z - b.min.z, 0.48, 1e-6, 'z untouched by the fit');
});

test('whole strings are laid out by advance width without kerning', () => {
  const f = font();
  const one = bbox(glyphGeometry(f, { ...base, text: 'l', sizePx: 100 }));
  const two = bbox(glyphGeometry(f, { ...base, text: 'll', sizePx: 100 }));
  const adv = (f.charToGlyph('l').advanceWidth! / 1000) * 100 * (1000 / 1302) * P2W;
  near(two.max.x - two.min.x - (one.max.x - one.min.x), adv, 1e-5, 'second l one advance further');
});

// The front cap at z = max − 0 lies at +(D_w/2 + t) after centring; its area is the outline minus its holes.
function frontCapEm(text: string): { cap: number; outer: number } {
  const S = 1302 / 1000 / P2W; // so that k = 1 world per em
  const g = glyphGeometry(font(), { ...base, text, sizePx: S, depthPx: 1 / P2W / 10 });
  const b = bbox(g);
  const cap = capArea(g, b.max.z, 1e-7);
  const box = (b.max.x - b.min.x) * (b.max.y - b.min.y);
  return { cap, outer: box };
}

test('holes: "O", "8", "o", "B", "A" caps have their counters cut out (DM Sans v1.200 contours)', () => {
  const f = font();
  for (const [ch, contourCount, holeCount] of [
    ['O', 2, 1],
    ['8', 3, 2],
    ['o', 2, 1],
    ['B', 3, 2],
    ['A', 2, 1],
  ] as const) {
    const sp = f.charToGlyph(ch).getPath(0, 0, 1).commands;
    const contours: { x: number; y: number }[][] = [];
    for (const c of sp) {
      if (c.type === 'M') contours.push([{ x: c.x!, y: -c.y! }]);
      else if (c.x !== undefined) contours[contours.length - 1].push({ x: c.x!, y: -c.y! });
    }
    assert.equal(contours.length, contourCount, `${ch} contour count`);
    // y up: clockwise (negative signed area) = solid, counter-clockwise = hole
    const signed = contours.map((c) => -polygonArea(c));
    assert.equal(signed.filter((a) => a < 0).length, holeCount, `${ch} hole count in the font`);
    const expected = signed.reduce((a, b) => a + b, 0);
    const solidOnly = signed.filter((a) => a > 0).reduce((a, b) => a + b, 0);
    const { cap } = frontCapEm(ch);
    // the cap is the on-curve polygon refined by curve samples, so allow a few % of slack
    assert.ok(Math.abs(cap - expected) < 0.06 * expected, `${ch}: cap ${cap} vs outline minus holes ${expected}`);
    if (holeCount > 0)
      assert.ok(
        cap < solidOnly - 0.5 * (solidOnly - expected),
        `${ch}: holes are really cut (cap ${cap}, solid ${solidOnly})`,
      );
  }
});

test('the dot of an "i" is its own shape (not a hole)', () => {
  const g = glyphGeometry(font(), { ...base, text: 'i', sizePx: 1302 / 1000 / P2W, depthPx: 10 });
  const b = bbox(g);
  const cap = capArea(g, b.max.z, 1e-7);
  assert.ok(cap > 0.05, `i cap area ${cap} em²`);
  // stem + dot: the box is much taller than the stem alone (x-height 0.496 em)
  assert.ok(b.max.y - b.min.y > 0.65);
});

test('runner 0.0.1 uses only the first character and ignores size:', () => {
  const a = bbox(glyphGeometry(font(), { ...base, text: 'Cxyz', sizePx: 430, runner: '0.0.1' }));
  const c = bbox(glyphGeometry(font(), { ...base, text: 'C', sizePx: null, runner: '0.0.2' }));
  near(a.max.x - a.min.x, c.max.x - c.min.x, 0.02, '0.0.1 width like the auto-fit C');
  near(a.max.y - a.min.y, c.max.y - c.min.y, 0.02, '0.0.1 height like the auto-fit C');
  near(a.min.z + a.max.z, 0, 1e-9, 'centred in z');
});

test('empty text draws "?" and deterministic builds', () => {
  const a = glyphGeometry(font(), { ...base, text: '', sizePx: 100 });
  const q = glyphGeometry(font(), { ...base, text: '?', sizePx: 100 });
  assert.deepEqual(Array.from(a.getAttribute('position').array), Array.from(q.getAttribute('position').array));
  assert.ok(a.getAttribute('position').count > 100);
  assert.ok(!(a as THREE.BufferGeometry).getIndex(), 'non-indexed: flat shading per face');
});

test('robustness: spaces give an empty solid; a missing character draws .notdef', () => {
  const sp = glyphGeometry(font(), { ...base, text: '   ', sizePx: 100 });
  assert.equal(sp.getAttribute('position').count, 0);
  const missing = glyphGeometry(font(), { ...base, text: '\u{1F600}', sizePx: 100 });
  const notdef = font().glyphs.get(0).getPath(0, 0, 1).commands.length;
  if (notdef > 0) assert.ok(missing.getAttribute('position').count > 0, '.notdef has an outline and is drawn');
  const b = bbox(glyphGeometry(font(), { ...base, text: 'a\u{1F600}b', sizePx: 100 }));
  const ab = bbox(glyphGeometry(font(), { ...base, text: 'ab', sizePx: 100 }));
  const adv = ((font().glyphs.get(0).advanceWidth ?? 0) / 1000) * 100 * (1000 / 1302) * P2W;
  near(b.max.x - b.min.x - (ab.max.x - ab.min.x), adv, 1e-5, 'one .notdef advance');
});
