import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { svgGeometry, svgPolygons, strokeOutline } from '../../../viewer/src/meshes/index.js';
import { bbox, capArea, near, P2W, polygonArea } from './helpers.js';

const o = { depthPx: 16, sizePx: 400, roundPx: 0, p2w: P2W, runner: '0.0.13' };
const geo = (svg: string, extra: Partial<typeof o> = {}) =>
  svgGeometry(svg, { ...o, ...extra }) as THREE.BufferGeometry;

const RECT =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50"><rect x="10" y="5" width="80" height="40"/></svg>';
const CIRCLE = '<svg xmlns="http://www.w3.org/2000/svg"><circle cx="50" cy="50" r="20" fill="red"/></svg>';
const LINE =
  '<svg xmlns="http://www.w3.org/2000/svg" fill="none" stroke="black" stroke-width="4"><path d="M0 0 L100 0"/></svg>';
const RING =
  '<svg xmlns="http://www.w3.org/2000/svg" fill="none" stroke="currentColor" stroke-width="2"><circle cx="9" cy="7" r="4"/></svg>';
const USERS =
  '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2"/><path d="M16 3.128a4 4 0 0 1 0 7.744"/><path d="M22 21v-2a4 4 0 0 0-3-3.87"/><circle cx="9" cy="7" r="4"/></svg>';

test('filled rect: size tall, aspect kept, depth d, centred (z ∈ ±d/2)', () => {
  const b = bbox(geo(RECT));
  near(b.max.y - b.min.y, 400 * P2W, 1e-6, 'height = size');
  near(b.max.x - b.min.x, 800 * P2W, 1e-6, 'width 2:1');
  near(b.min.z, -8 * P2W, 1e-7, 'z min');
  near(b.max.z, 8 * P2W, 1e-7, 'z max');
  near(b.min.x + b.max.x, 0, 1e-6, 'cx');
  near(b.min.y + b.max.y, 0, 1e-6, 'cy');
});

test('filled circle: 48 samples, area of a disc', () => {
  const g = geo(CIRCLE, { sizePx: 100 });
  const b = bbox(g);
  near(b.max.y - b.min.y, 100 * P2W, 1e-6, 'height');
  const r = 50 * P2W;
  const a = capArea(g, b.max.z, 1e-7);
  near(a, Math.PI * r * r, 0.01 * Math.PI * r * r, 'disc area');
});

test('default fill is black; "neither filled nor stroked" is filled too', () => {
  const dflt = bbox(svgGeometry('<svg><rect width="10" height="10"/></svg>', o) as THREE.BufferGeometry);
  near(dflt.max.y - dflt.min.y, 400 * P2W, 1e-6, 'default black fill');
  const none = svgGeometry('<svg><rect width="10" height="10" fill="none"/></svg>', o);
  assert.ok(none, 'fill none and no stroke: still turned into shapes (§5.6.4 step 2)');
  const strokedOnly = svgPolygons('<svg><rect width="10" height="10" fill="none" stroke="red"/></svg>')!;
  assert.equal(strokedOnly.length, 1);
  assert.equal(strokedOnly[0].holes.length, 1, 'stroked-only rect is a band, not a fill');
});

test('stroked line: outline with round caps; width in user units', () => {
  const polys = svgPolygons(LINE)!;
  assert.equal(polys.length, 1);
  const ring = polys[0].outer;
  assert.equal(ring.length, 2 + 7 + 2 + 7, 'L0 L1, end cap, R1 R0, start cap');
  const xs = ring.map((p) => p.x),
    ys = ring.map((p) => p.y);
  near(Math.min(...xs), -2, 1e-9, 'start cap reaches -hw');
  near(Math.max(...xs), 102, 1e-9, 'end cap reaches 100+hw');
  near(Math.max(...ys) - Math.min(...ys), 4, 1e-9, 'band is the stroke width');
  // rect + two half 16-gons of radius 2
  near(Math.abs(polygonArea(ring)), 100 * 4 + 8 * 4 * Math.sin(Math.PI / 8), 1e-9, 'rect + two round caps');
  const b = bbox(geo(LINE, { sizePx: 40 }));
  near(b.max.y - b.min.y, 40 * P2W, 1e-6, 'height = size');
  near((b.max.x - b.min.x) / (b.max.y - b.min.y), 104 / 4, 1e-3, 'aspect of the outline');
});

test('closed stroke (circle) is a band: outer ring + hole', () => {
  const polys = svgPolygons(RING)!;
  assert.equal(polys.length, 1);
  assert.equal(polys[0].holes.length, 1);
  const outer = Math.abs(polygonArea(polys[0].outer)),
    inner = Math.abs(polygonArea(polys[0].holes[0]));
  near(outer - inner, Math.PI * (25 - 9), 0.1, 'annulus area');
  const g = geo(RING, { sizePx: 100 });
  const b = bbox(g);
  near(b.max.y - b.min.y, 100 * P2W, 1e-6, 'height');
  const k = (100 * P2W) / 10; // 10 user units tall
  near(capArea(g, b.max.z, 1e-7), Math.PI * 16 * k * k, 0.02 * Math.PI * 16 * k * k, 'hole really cut');
});

test('mitre: a right angle offsets by hw·√2; a hairpin clamps at 4·hw', () => {
  const pts = [new THREE.Vector2(0, 0), new THREE.Vector2(10, 0), new THREE.Vector2(10, 10)];
  const p = strokeOutline(pts, 1, false)!;
  near(p.outer[1].distanceTo(pts[1]), Math.SQRT2, 1e-9, 'right-angle mitre');
  const hair = [new THREE.Vector2(0, 0), new THREE.Vector2(10, 0), new THREE.Vector2(0, 0.01)];
  const q = strokeOutline(hair, 1, false)!;
  assert.ok(q.outer[1].distanceTo(hair[1]) <= 4 + 1e-9, 'clamped at 4·hw');
  near(q.outer[1].distanceTo(hair[1]), 4, 0.01, 'hairpin reaches the clamp');
  assert.equal(strokeOutline([new THREE.Vector2(1, 1), new THREE.Vector2(1, 1)], 1, false), null);
});

test('round: bevel clamped below d/2, solid offset −r in z (Q13), still size tall', () => {
  const d = 16 * P2W;
  const b = bbox(geo(RECT, { roundPx: 4 }));
  const r = 4 * P2W;
  near(b.min.z, -d / 2 - r, 1e-7, 'z min');
  near(b.max.z, d / 2 - r, 1e-7, 'z max');
  near(b.max.y - b.min.y, 400 * P2W, 1e-6, 'height');
  const big = bbox(geo(RECT, { roundPx: 100 }));
  const rc = d / 2 - 1e-4;
  near(big.max.z - big.min.z, d, 1e-6, 'total thickness stays d');
  near(big.min.z, -d / 2 - rc, 1e-6, 'clamped r');
});

test('lucide "users": paths + circle parsed, size tall, depth 80 px', () => {
  const polys = svgPolygons(USERS)!;
  assert.equal(polys.length, 4);
  const g = geo(USERS, { depthPx: 80, sizePx: 820 });
  const b = bbox(g);
  near(b.max.y - b.min.y, 820 * P2W, 1e-6, 'height');
  near(b.max.z - b.min.z, 80 * P2W, 1e-6, 'depth');
});

test('transforms move points but do not scale the stroke width; parse failure draws nothing', () => {
  const t = svgPolygons(
    '<svg stroke="black" fill="none"><g transform="translate(100 0) scale(10)"><path d="M0 0 L10 0" stroke-width="2"/></g></svg>',
  )!;
  const ys = t[0].outer.map((p) => p.y);
  near(Math.max(...ys) - Math.min(...ys), 2, 1e-9, 'width not scaled');
  const xs = t[0].outer.map((p) => p.x);
  near(Math.min(...xs), 99, 1e-9, 'moved');
  assert.equal(svgGeometry('<svg><rect width="10" height="10"', o), null);
  assert.equal(svgGeometry('not xml at all <<', o), null);
  assert.equal(svgGeometry(RECT, { ...o, runner: '0.0.3' }), null, 'no svg() before 0.0.5');
});
