// vectorize's step 7 (stitch) and step 6 (rdp) skip work a plain implementation repeats; these tests hold them
// to the plain, literal reading of viewer.md §5.6.5 on many random inputs: same joins, same kept points.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stitch, rdp } from '../../../viewer/src/meshes/vectorize.js';
import { prng } from '../../helpers/prng.js';

type Pt = [number, number];

/** §5.6.5 step 7 as written: scan pairs (i < j) in order, apply the first join, restart from scratch. */
function stitchLiteral(lines: Pt[][], tau: number): Pt[][] {
  const L = lines.map((l) => l.slice());
  const dist = (p: Pt, q: Pt) => Math.hypot(p[0] - q[0], p[1] - q[1]);
  const rev = (l: Pt[]) => l.slice().reverse();
  outer: for (;;) {
    for (let i = 0; i < L.length; i++) {
      for (let j = i + 1; j < L.length; j++) {
        const A = L[i],
          B = L[j];
        const sA = A[0],
          eA = A[A.length - 1],
          sB = B[0],
          eB = B[B.length - 1];
        let joined: Pt[] | null = null;
        if (dist(eA, sB) <= tau) joined = A.concat(B);
        else if (dist(eA, eB) <= tau) joined = A.concat(rev(B));
        else if (dist(sA, sB) <= tau) joined = rev(A).concat(B);
        else if (dist(sA, eB) <= tau) joined = B.concat(A);
        if (joined) {
          L[i] = joined;
          L.splice(j, 1);
          continue outer;
        }
      }
    }
    return L;
  }
}

/** §5.6.5 step 6 as written: recursive split at the first maximum above ε. */
function rdpLiteral(pts: Pt[], eps: number): Pt[] {
  if (pts.length <= 2) return pts.slice();
  const [ax, ay] = pts[0],
    [bx, by] = pts[pts.length - 1];
  const dx = bx - ax,
    dy = by - ay;
  const len = Math.hypot(dx, dy);
  let maxD = -1,
    idx = -1;
  for (let i = 1; i < pts.length - 1; i++) {
    const d = len === 0 ? 0 : Math.abs(dy * (pts[i][0] - ax) - dx * (pts[i][1] - ay)) / len;
    if (d > maxD) {
      maxD = d;
      idx = i;
    }
  }
  if (maxD > eps)
    return rdpLiteral(pts.slice(0, idx + 1), eps)
      .slice(0, -1)
      .concat(rdpLiteral(pts.slice(idx), eps));
  return [pts[0], pts[pts.length - 1]];
}

test('stitch joins exactly like the literal restart-from-scratch scan (2000 random sets)', () => {
  const rnd = prng(20240611);
  const int = (n: number) => Math.floor(rnd() * n);
  for (let run = 0; run < 2000; run++) {
    const grid = 4 + int(40); // small grids: many ends within τ, long chains of joins
    const lines: Pt[][] = [];
    for (let k = int(30); k >= 0; k--) {
      const line: Pt[] = [];
      for (let m = 2 + int(4); m > 0; m--) line.push([int(grid), int(grid)]);
      lines.push(line);
    }
    const tau = rnd() * 6;
    assert.deepEqual(stitch(lines, tau), stitchLiteral(lines, tau), `run ${run}: τ ${tau}, ${JSON.stringify(lines)}`);
  }
});

test('rdp keeps exactly the points of the literal recursive split (2000 random polylines)', () => {
  const rnd = prng(7);
  for (let run = 0; run < 2000; run++) {
    const pts: Pt[] = [];
    let x = 0,
      y = 0;
    for (let n = Math.floor(rnd() * 60); n >= 0; n--) {
      x += Math.floor(rnd() * 3) - 1;
      y += Math.floor(rnd() * 3) - 1;
      pts.push([x, y]);
    }
    const eps = rnd() < 0.5 ? Math.floor(rnd() * 3) : rnd() * 3; // whole ε too: ties with axis-aligned distances
    assert.deepEqual(rdp(pts, eps), rdpLiteral(pts, eps), `run ${run}`);
  }
});
