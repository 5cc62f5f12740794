import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import {
  trace,
  traceToSvg,
  vectorizeGeometry,
  svgPolygons,
  VECTORIZE_DEFAULTS,
} from '../../../viewer/src/meshes/index.js';
import type { RasterImage } from '../../../viewer/src/meshes/index.js';
import { bbox, near, P2W } from './helpers.js';

/** White canvas; `ink(x, y)` decides dark pixels (value 0..255). */
function canvas(w: number, h: number, ink: (x: number, y: number) => number | null): RasterImage {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const v = ink(x, y) ?? 255;
      const i = (y * w + x) * 4;
      data[i] = data[i + 1] = data[i + 2] = v;
      data[i + 3] = 255;
    }
  return { width: w, height: h, data };
}
const distToSeg = (px: number, py: number, ax: number, ay: number, bx: number, by: number) => {
  const dx = bx - ax,
    dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
};
const opts = { ...VECTORIZE_DEFAULTS };

function pathPoints(svg: string): [number, number][][] {
  const d = /<path d="([^"]*)"/.exec(svg)![1];
  return d
    .split('M')
    .filter((s) => s.trim())
    .map((s) => {
      const nums = s.replace(/L/g, ' ').trim().split(/\s+/).map(Number);
      const pts: [number, number][] = [];
      for (let i = 0; i < nums.length; i += 2) pts.push([nums[i], nums[i + 1]]);
      return pts;
    });
}

test('a thick horizontal stroke traces to one centreline within 1-2 px, uniform stroke width', () => {
  const img = canvas(200, 100, (x, y) => (x >= 20 && x <= 180 && Math.abs(y - 50) <= 4 ? 0 : null));
  const svg = traceToSvg(img, { ...opts, strokeWidth: 7 });
  assert.match(svg, /viewBox="0 0 200 100"/);
  assert.match(svg, /stroke-width="7"/);
  assert.match(svg, /fill="none" stroke="currentColor"/);
  assert.match(svg, /stroke-linecap="round" stroke-linejoin="round"/);
  const lines = pathPoints(svg);
  assert.equal(lines.length, 1);
  for (const [x, y] of lines[0]) {
    near(y, 50, 1.5, 'on the centreline');
    assert.ok(x >= 18 && x <= 182, `x ${x} within the stroke`);
  }
  const xs = lines[0].map((p) => p[0]);
  assert.ok(Math.max(...xs) - Math.min(...xs) > 140, 'covers the stroke length');
  for (const n of /d="([^"]*)"/.exec(svg)![1].match(/-?\d+(\.\d+)?/g)!) assert.match(n, /^-?\d+\.\d$/, 'one decimal');
});

test('diagonal stroke and a circle: centreline within 1-2 px', () => {
  const img = canvas(300, 300, (x, y) => {
    if (distToSeg(x, y, 30, 40, 260, 120) <= 3) return 0;
    if (Math.abs(Math.hypot(x - 150, y - 210) - 60) <= 3) return 0;
    return null;
  });
  const { polylines, sigma } = trace(img, { ...opts, stitch: 2 });
  assert.equal(sigma, 1);
  assert.ok(polylines.length >= 2, `${polylines.length} polylines`);
  const svg = traceToSvg(img, { ...opts, stitch: 2 });
  for (const line of pathPoints(svg))
    for (const [x, y] of line) {
      const dLine = distToSeg(x, y, 30, 40, 260, 120);
      const dCirc = Math.abs(Math.hypot(x - 150, y - 210) - 60);
      assert.ok(Math.min(dLine, dCirc) <= 2, `(${x}, ${y}) is ${Math.min(dLine, dCirc)} px off the drawn centrelines`);
    }
});

test('threshold: grey ink is ink only when darker than threshold·255; transparent is paper', () => {
  const grey = canvas(120, 60, (x, y) => (x >= 10 && x <= 110 && Math.abs(y - 30) <= 3 ? 140 : null));
  assert.equal(pathPoints(traceToSvg(grey, { ...opts, threshold: 0.5 })).length, 0, '140 > 127.5: paper');
  assert.equal(pathPoints(traceToSvg(grey, { ...opts, threshold: 0.6 })).length, 1, '140 < 153: ink');
  const clear = canvas(120, 60, (x, y) => (x >= 10 && x <= 110 && Math.abs(y - 30) <= 3 ? 0 : null));
  for (let i = 3; i < clear.data.length; i += 4) clear.data[i] = 0; // black but fully transparent
  assert.equal(pathPoints(traceToSvg(clear, opts)).length, 0, 'alpha < 8 reads as white');
});

test('bridge closes small gaps; stitch joins nearby ends', () => {
  // two dashes 3 px apart on one line
  const img = canvas(200, 60, (x, y) =>
    ((x >= 10 && x <= 95) || (x >= 99 && x <= 190)) && Math.abs(y - 30) <= 2 ? 0 : null,
  );
  assert.equal(pathPoints(traceToSvg(img, { ...opts, bridge: 0, stitch: 0 })).length, 2, 'no bridge, no stitch: two');
  assert.equal(pathPoints(traceToSvg(img, { ...opts, bridge: 2, stitch: 0 })).length, 1, 'bridge 2 fills a 3 px gap');
  const far = canvas(200, 60, (x, y) =>
    ((x >= 10 && x <= 80) || (x >= 100 && x <= 190)) && Math.abs(y - 30) <= 2 ? 0 : null,
  );
  assert.equal(pathPoints(traceToSvg(far, { ...opts, bridge: 0, stitch: 5 })).length, 2, 'gap 20 > τ 5');
  assert.equal(pathPoints(traceToSvg(far, { ...opts, bridge: 0, stitch: 30 })).length, 1, 'gap 20 ≤ τ 30: joined');
});

test('simplify: a straight stroke collapses to its two ends', () => {
  const img = canvas(200, 60, (x, y) => (x >= 10 && x <= 190 && Math.abs(y - 30) <= 3 ? 0 : null));
  const lines = pathPoints(traceToSvg(img, { ...opts, simplify: 1.5 }));
  assert.equal(lines[0].length, 2);
});

test('maxDim: big images are traced at ≤ 700 px and written back in source pixels', () => {
  const img = canvas(1400, 200, (x, y) => (x >= 100 && x <= 1300 && Math.abs(y - 100) <= 8 ? 0 : null));
  const r = trace(img, opts);
  assert.equal(r.sigma, 0.5);
  assert.equal(r.width, 700);
  assert.equal(r.height, 100);
  assert.match(r.svg, /viewBox="0 0 1400 200"/);
  const lines = pathPoints(r.svg);
  assert.equal(lines.length, 1);
  for (const [, y] of lines[0]) near(y, 100, 2.5, 'y in source px');
  const xs = lines[0].map((p) => p[0]);
  assert.ok(Math.max(...xs) > 1200 && Math.min(...xs) < 200, 'x in source px');
  // pre-scaled input (a browser canvas already drew it at 700 × 100): same σ, same source-px output
  const small = canvas(700, 100, (x, y) => (x >= 50 && x <= 650 && Math.abs(y - 50) <= 4 ? 0 : null));
  const pre = trace({ ...small, naturalWidth: 1400, naturalHeight: 200 }, opts);
  assert.equal(pre.sigma, 0.5);
  assert.match(pre.svg, /viewBox="0 0 1400 200"/);
  for (const [, y] of pathPoints(pre.svg)[0]) near(y, 100, 2.5, 'pre-scaled y in source px');
});

test('the SVG feeds svg(): a solid size tall, stroke width uniform', () => {
  const img = canvas(300, 300, (x, y) => (Math.abs(Math.hypot(x - 150, y - 150) - 100) <= 4 ? 0 : null));
  const svg = traceToSvg(img, { ...opts, strokeWidth: 8 });
  const polys = svgPolygons(svg)!;
  assert.ok(polys.length >= 1);
  const g = vectorizeGeometry(img, { ...opts, strokeWidth: 8 }, { depthPx: 70, sizePx: 780, roundPx: 10, p2w: P2W })!;
  const b = bbox(g as THREE.BufferGeometry);
  near(b.max.y - b.min.y, 780 * P2W, 1e-6, 'size tall');
  near(b.max.z - b.min.z, 70 * P2W, 1e-6, 'depth');
});

test('snap (live editor only, off by default): a T-junction end gains the nearest vertex of the other line', () => {
  // a roof (apex at (100, 50)) and a vertical stem whose top stops 8 px below the apex
  const img = canvas(200, 200, (x, y) =>
    distToSeg(x, y, 20, 90, 100, 50) <= 2 ||
    distToSeg(x, y, 100, 50, 180, 90) <= 2 ||
    (Math.abs(x - 100) <= 2 && y >= 60 && y <= 180)
      ? 0
      : null,
  );
  const base = { ...opts, bridge: 0, stitch: 16, simplify: 1 };
  const plain = trace(img, base).polylines;
  const snapped = trace(img, { ...base, snap: true }).polylines;
  assert.equal(plain.length, snapped.length);
  const count = (ls: [number, number][][]) => ls.reduce((n, l) => n + l.length, 0);
  assert.ok(count(snapped) > count(plain), 'snap adds end vertices');
  // the stem's top end now touches a vertex of the bar
  const stem = snapped.find((l) => l.some(([x, y]) => Math.abs(x - 100) <= 2 && y > 120))!;
  const ends = [stem[0], stem[stem.length - 1]];
  assert.ok(
    ends.some(([x, y]) => Math.abs(x - 100) <= 2 && Math.abs(y - 50) <= 2),
    `stem ends ${JSON.stringify(ends)}`,
  );
});
