// vectorize(image(...), ...) — viewer.md §5.6.5: raster line drawing → centreline SVG → §5.6.4 solid.
import type * as THREE from 'three';
import type { RasterImage, SvgOptions, VectorizeOptions } from './types.js';
import { svgGeometry } from './svg.js';

export const VECTORIZE_DEFAULTS: VectorizeOptions = {
  strokeWidth: 6,
  threshold: 0.5,
  simplify: 1.5,
  bridge: 2,
  stitch: 6,
  maxDim: 700,
};

type Pt = [number, number];

/** Step 1: the working size and σ for a natural size. */
export function workingSize(ow: number, oh: number, maxDim: number): { w: number; h: number; sigma: number } {
  const sigma = Math.min(1, maxDim / Math.max(ow, oh));
  return { w: Math.max(1, Math.round(ow * sigma)), h: Math.max(1, Math.round(oh * sigma)), sigma };
}

/** Area-average resample of an RGBA image to w × h (Node stand-in for the browser's canvas drawImage). */
export function resample(img: RasterImage, w: number, h: number): RasterImage {
  if (img.width === w && img.height === h) return img;
  const out = new Uint8ClampedArray(w * h * 4);
  const sx = img.width / w,
    sy = img.height / h;
  for (let y = 0; y < h; y++) {
    const y0 = y * sy,
      y1 = (y + 1) * sy;
    for (let x = 0; x < w; x++) {
      const x0 = x * sx,
        x1 = (x + 1) * sx;
      const acc = [0, 0, 0, 0];
      let wsum = 0;
      for (let yy = Math.floor(y0); yy < Math.min(img.height, Math.ceil(y1)); yy++) {
        const wy = Math.min(y1, yy + 1) - Math.max(y0, yy);
        for (let xx = Math.floor(x0); xx < Math.min(img.width, Math.ceil(x1)); xx++) {
          const wgt = wy * (Math.min(x1, xx + 1) - Math.max(x0, xx));
          if (wgt <= 0) continue;
          const i = (yy * img.width + xx) * 4;
          for (let c = 0; c < 4; c++) acc[c] += img.data[i + c] * wgt;
          wsum += wgt;
        }
      }
      const o = (y * w + x) * 4;
      for (let c = 0; c < 4; c++) out[o + c] = wsum > 0 ? Math.round(acc[c] / wsum) : 0;
    }
  }
  return { width: w, height: h, data: out };
}

/** Step 2: ink where luminance (255 when alpha < 8) < threshold·255. */
export function binarize(img: RasterImage, threshold: number): Uint8Array {
  const n = img.width * img.height;
  const ink = new Uint8Array(n);
  const cut = threshold * 255;
  for (let i = 0; i < n; i++) {
    const r = img.data[4 * i],
      g = img.data[4 * i + 1],
      b = img.data[4 * i + 2],
      a = img.data[4 * i + 3];
    const lum = a < 8 ? 255 : 0.299 * r + 0.587 * g + 0.114 * b;
    if (lum < cut) ink[i] = 1;
  }
  return ink;
}

/** Step 3: `passes` rounds of 8-neighbour dilation, each reading the grid as it was at its start. */
export function bridge(ink: Uint8Array, w: number, h: number, passes: number): Uint8Array {
  let cur = ink;
  for (let p = 0; p < passes; p++) {
    const next = cur.slice();
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        if (cur[i]) continue;
        let hit = false;
        for (let dy = -1; dy <= 1 && !hit; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= h) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx;
            if ((dx || dy) && xx >= 0 && xx < w && cur[yy * w + xx]) {
              hit = true;
              break;
            }
          }
        }
        if (hit) next[i] = 1;
      }
    }
    cur = next;
  }
  return cur;
}

/** Step 4: Zhang–Suen thinning (in place), interior pixels only. */
export function thin(ink: Uint8Array, w: number, h: number): Uint8Array {
  const del: number[] = [];
  for (;;) {
    let changed = false;
    for (let sub = 0; sub < 2; sub++) {
      del.length = 0;
      for (let y = 1; y <= h - 2; y++) {
        for (let x = 1; x <= w - 2; x++) {
          const i = y * w + x;
          if (!ink[i]) continue;
          const p2 = ink[i - w],
            p3 = ink[i - w + 1],
            p4 = ink[i + 1],
            p5 = ink[i + w + 1];
          const p6 = ink[i + w],
            p7 = ink[i + w - 1],
            p8 = ink[i - 1],
            p9 = ink[i - w - 1];
          const B = p2 + p3 + p4 + p5 + p6 + p7 + p8 + p9;
          if (B < 2 || B > 6) continue;
          const A =
            +(!p2 && p3) +
            +(!p3 && p4) +
            +(!p4 && p5) +
            +(!p5 && p6) +
            +(!p6 && p7) +
            +(!p7 && p8) +
            +(!p8 && p9) +
            +(!p9 && p2);
          if (A !== 1) continue;
          if (sub === 0) {
            if (p2 * p4 * p6 !== 0 || p4 * p6 * p8 !== 0) continue;
          } else if (p2 * p4 * p8 !== 0 || p2 * p6 * p8 !== 0) continue;
          del.push(i);
        }
      }
      for (const i of del) ink[i] = 0;
      if (del.length) changed = true;
    }
    if (!changed) return ink;
  }
}

const NB: Pt[] = [
  [-1, -1],
  [0, -1],
  [1, -1],
  [-1, 0],
  [1, 0],
  [-1, 1],
  [0, 1],
  [1, 1],
];
const NB_UNIT: Pt[] = NB.map(([dx, dy]) => {
  const l = Math.hypot(dx, dy);
  return [dx / l, dy / l];
});

/** Step 5: greedy, straightest-first walks over the skeleton. Keeps polylines of ≥ 4 points. */
export function traceSkeleton(sk: Uint8Array, w: number, h: number): Pt[][] {
  const visited = new Uint8Array(w * h);
  const inkAt = (x: number, y: number) => x >= 0 && y >= 0 && x < w && y < h && sk[y * w + x] === 1;
  const lines: Pt[][] = [];
  const walk = (sx: number, sy: number) => {
    visited[sy * w + sx] = 1;
    const pts: Pt[] = [[sx, sy]];
    let x = sx,
      y = sy;
    let hx = 0,
      hy = 0,
      first = true;
    for (;;) {
      let best = -1,
        bestDot = -Infinity;
      for (let k = 0; k < 8; k++) {
        const nx = x + NB[k][0],
          ny = y + NB[k][1];
        if (!inkAt(nx, ny) || visited[ny * w + nx]) continue;
        if (first) {
          best = k;
          break;
        }
        const dot = NB_UNIT[k][0] * hx + NB_UNIT[k][1] * hy;
        if (dot > bestDot) {
          bestDot = dot;
          best = k;
        }
      }
      if (best < 0) break;
      x += NB[best][0];
      y += NB[best][1];
      visited[y * w + x] = 1;
      pts.push([x, y]);
      hx = NB_UNIT[best][0];
      hy = NB_UNIT[best][1];
      first = false;
    }
    if (pts.length >= 4) lines.push(pts);
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!sk[y * w + x] || visited[y * w + x]) continue;
      let nb = 0;
      for (const [dx, dy] of NB) if (inkAt(x + dx, y + dy)) nb++;
      if (nb === 1) walk(x, y);
    }
  }
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (sk[y * w + x] && !visited[y * w + x]) walk(x, y);
  return lines;
}

/** Step 6: Ramer–Douglas–Peucker against the infinite line through the ends. The splits are kept as index
 *  ranges on a stack rather than as copied sub-arrays: the kept points are the same, but an all-ink image
 *  (one serpentine walk over every pixel, deep splits) no longer copies the polyline at every level
 *  (700² black pixels: 13 s and 1.9 GB before). */
export function rdp(pts: Pt[], eps: number): Pt[] {
  if (pts.length <= 2) return pts.slice();
  const keep = new Uint8Array(pts.length);
  keep[0] = keep[pts.length - 1] = 1;
  const stack: number[] = [0, pts.length - 1];
  while (stack.length) {
    const b = stack.pop()!,
      a = stack.pop()!;
    if (b - a < 2) continue;
    const [ax, ay] = pts[a],
      [bx, by] = pts[b];
    const dx = bx - ax,
      dy = by - ay;
    const len = Math.hypot(dx, dy);
    let maxD = -1,
      idx = -1;
    for (let i = a + 1; i < b; i++) {
      const d = len === 0 ? 0 : Math.abs(dy * (pts[i][0] - ax) - dx * (pts[i][1] - ay)) / len;
      if (d > maxD) {
        maxD = d;
        idx = i;
      }
    }
    if (maxD > eps) {
      keep[idx] = 1;
      stack.push(a, idx, idx, b);
    }
  }
  return pts.filter((_, i) => keep[i] === 1);
}

/** The first of the four joins of step 7 that applies to A then B (distance ≤ τ), or null. */
function joinPair(A: Pt[], B: Pt[], tau: number): Pt[] | null {
  const dist = (p: Pt, q: Pt) => Math.hypot(p[0] - q[0], p[1] - q[1]);
  const rev = (l: Pt[]) => l.slice().reverse();
  const sA = A[0],
    eA = A[A.length - 1],
    sB = B[0],
    eB = B[B.length - 1];
  if (dist(eA, sB) <= tau) return A.concat(B);
  if (dist(eA, eB) <= tau) return A.concat(rev(B));
  if (dist(sA, sB) <= tau) return rev(A).concat(B);
  if (dist(sA, eB) <= tau) return B.concat(A);
  return null;
}

/** Step 7: join endpoints within τ (both end points kept), restarting the scan after each join.
 *  The restart resumes at row i of the join instead of row 0, with the same joins: every line in a row
 *  before i is apart from every other line (all four end distances > τ), and a joined line's ends are ends
 *  of the two lines it joins, so it is apart from those rows too. Quadratic in the number of polylines
 *  instead of cubic (a 400² image of short dashes: 8 s before, about 1 s now). */
export function stitch(lines: Pt[][], tau: number): Pt[][] {
  const L = lines.map((l) => l.slice());
  for (let i = 0; i < L.length; i++) {
    for (let j = i + 1; j < L.length; j++) {
      const joined = joinPair(L[i], L[j], tau);
      if (joined) {
        L[i] = joined;
        L.splice(j, 1);
        j = i;
      } // the next pair tested is (i, i + 1)
    }
  }
  return L;
}

/** Step 8 (live editor after 0.0.13 only; not in the frozen 0.0.13 runner): snap heads/tails to the nearest
 *  vertex of another polyline at 0.5 < d < τ. */
export function snapEndpoints(lines: Pt[][], tau: number): Pt[][] {
  const L = lines.map((l) => l.slice());
  for (let i = 0; i < L.length; i++) {
    for (const head of [true, false]) {
      const line = L[i];
      const p = head ? line[0] : line[line.length - 1];
      let best: Pt | null = null,
        bestD = Infinity;
      for (let j = 0; j < L.length; j++) {
        if (j === i) continue;
        for (const q of L[j]) {
          const d = Math.hypot(p[0] - q[0], p[1] - q[1]);
          if (d > 0.5 && d < tau && d < bestD) {
            bestD = d;
            best = q;
          }
        }
      }
      if (best) {
        if (head) line.unshift([best[0], best[1]]);
        else line.push([best[0], best[1]]);
      }
    }
  }
  return L;
}

export interface TraceResult {
  svg: string;
  polylines: Pt[][];
  sigma: number;
  width: number;
  height: number;
}

/** The whole pipeline, returning the intermediate polylines (working px) too. */
export function trace(img: RasterImage, o: VectorizeOptions & { snap?: boolean }): TraceResult {
  const ow = img.naturalWidth ?? img.width,
    oh = img.naturalHeight ?? img.height;
  const { w, h, sigma } = workingSize(ow, oh, o.maxDim > 0 ? o.maxDim : 700);
  const work = img.width === w && img.height === h ? img : resample(img, w, h);
  let ink = binarize(work, o.threshold);
  ink = bridge(ink, w, h, Math.max(0, Math.round(o.bridge)));
  thin(ink, w, h);
  let lines = traceSkeleton(ink, w, h);
  lines = lines.map((l) => rdp(l, o.simplify * sigma)).filter((l) => l.length >= 2);
  lines = stitch(lines, o.stitch * sigma);
  if (o.snap) lines = snapEndpoints(lines, o.stitch * sigma);
  const f = (v: number) => (v / sigma).toFixed(1);
  const d = lines.map((l) => l.map((p, k) => `${k === 0 ? 'M' : 'L'} ${f(p[0])} ${f(p[1])}`).join(' ')).join(' ');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${ow} ${oh}" fill="none" stroke="currentColor"` +
    ` stroke-width="${o.strokeWidth}" stroke-linecap="round" stroke-linejoin="round"><path d="${d}"/></svg>`;
  return { svg, polylines: lines, sigma, width: w, height: h };
}

/** Raster → centreline SVG (viewer.md §5.6.5 steps 1–7 and 9; step 8 only with `snap: true`). */
export function traceToSvg(img: RasterImage, o: VectorizeOptions & { snap?: boolean }): string {
  return trace(img, o).svg;
}

/** Step 10: trace and extrude like svg() (runner semantics of 0.0.13+). */
export function vectorizeGeometry(
  img: RasterImage,
  o: VectorizeOptions,
  svgOpts: Omit<SvgOptions, 'runner'>,
): THREE.BufferGeometry | null {
  const g = svgGeometry(traceToSvg(img, o), { ...svgOpts, runner: '0.0.13' });
  return (g as THREE.BufferGeometry | null) ?? null;
}
