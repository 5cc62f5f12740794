// Bundled by parity.test.ts and run in headless Chromium: draws the meshes of a few gallery sources at
// t = 0 as white silhouettes under the viewer's fixed camera and reports their pixel extents.
import * as THREE from 'three';
import {
  parseFont,
  glyphGeometry,
  pathGeometry,
  metaballsObject,
  svgGeometry,
  rasterAtWorkingSize,
  traceToSvg,
  VECTORIZE_DEFAULTS,
} from '../../../../viewer/src/meshes/index.js';

type Extent = { rows: [number, number]; cols: [number, number] };

async function main(): Promise<Record<string, Extent | number>> {
  const fontUrl = (window as unknown as { __font: string }).__font;
  const font = parseFont(await (await fetch(fontUrl)).arrayBuffer());
  const H = 1080;
  const r = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  const cam = new THREE.PerspectiveCamera(28, 16 / 9, 0.1, 100);
  cam.position.set(0, 0, 6);
  const p2w = (12 * Math.tan((14 * Math.PI) / 180)) / 1080;
  const white = new THREE.MeshBasicMaterial({ color: 0xffffff });
  const px = new Uint8Array(1920 * H * 4);
  let lastMask = '';
  const extent = (objs: THREE.Object3D[], square = false, maxRow = Infinity, keepMask = false): Extent => {
    const W = square ? 1080 : 1920;
    r.setSize(W, H);
    cam.aspect = W / H;
    cam.updateProjectionMatrix();
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(0, 0, 0);
    scene.add(...objs);
    r.render(scene, cam);
    const gl = r.getContext();
    gl.readPixels(0, 0, W, H, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let r0 = H,
      r1 = -1,
      c0 = W,
      c1 = -1;
    const mask = keepMask ? new Uint8Array(W * H) : null;
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = (y * W + x) * 4;
        const row = H - 1 - y;
        if (row <= maxRow && px[i] + px[i + 1] + px[i + 2] > 3 * 40) {
          if (mask) mask[row * W + x] = 1;
          r0 = Math.min(r0, row);
          r1 = Math.max(r1, row);
          c0 = Math.min(c0, x);
          c1 = Math.max(c1, x);
        }
      }
    if (mask) {
      let bin = '';
      for (let i = 0; i < mask.length; i += 0x8000) bin += String.fromCharCode(...mask.subarray(i, i + 0x8000));
      lastMask = btoa(bin);
    }
    return { rows: [r0, r1], cols: [c0, c1] };
  };
  const out: Record<string, Extent | number> = {};
  let t0 = performance.now();
  const C = glyphGeometry(font, { text: 'C', sizePx: null, depthPx: 16, p2w, frameWidthPx: 1920, runner: '0.0.3' });
  out.homepageMs = performance.now() - t0;
  out.homepage = extent([new THREE.Mesh(C, white)]);
  out.probe = extent([
    new THREE.Mesh(
      glyphGeometry(font, { text: 'C', sizePx: null, depthPx: 16, p2w, frameWidthPx: 1920, runner: '0.0.1' }),
      white,
    ),
  ]);
  t0 = performance.now();
  const letters: [string, number, number][] = [
    ['c', -567, 0],
    ['m', -313, 0],
    ['o', -59, 0],
    ['t', 108, 0],
    ['i', 225, 30],
    ['o', 368, 0],
    ['n', 570, 0],
  ];
  const title = letters.map(([ch, x, y]) => {
    const m = new THREE.Mesh(
      glyphGeometry(font, { text: ch, sizePx: 430, depthPx: 43, p2w, frameWidthPx: 1920, runner: '0.0.3' }),
      white,
    );
    m.position.set(x * p2w, y * p2w, 0);
    return m;
  });
  out.titleMs = performance.now() - t0;
  out.title = extent(title);
  const star = pathGeometry(
    [
      [0, 150],
      [35, 46],
      [143, 46],
      [57, -18],
      [88, -121],
      [0, -57],
      [-88, -121],
      [-57, -18],
      [-143, 46],
      [-35, 46],
    ],
    60,
    p2w,
  )!;
  out.star = extent([new THREE.Mesh(star, white)]);
  const blobs = [
    [10, 30, 250],
    [-280, 150, 160],
    [300, -10, 170],
    [-160, -240, 150],
    [230, -280, 145],
    [-470, 40, 120],
    [500, -90, 115],
  ].map(([x, y, rr]) => ({ x, y, z: 0, r: rr }));
  out.lava = extent([metaballsObject(blobs, { smoothingPx: 90, p2w, aspect: 16 / 9, roughness: 0.18 })]);
  (out as Record<string, unknown>).lavaPng = r.domElement.toDataURL('image/png'); // shaded, over black
  // plinken-svg (pinned 0.0.5): the lucide "users" mark, depth 80, size 820, at (0, 40 px, 200 px); the
  // upper half only (the prism fan and its glow cover the lower half of the reference).
  const USERS =
    '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2"/><path d="M16 3.128a4 4 0 0 1 0 7.744"/><path d="M22 21v-2a4 4 0 0 0-3-3.87"/><circle cx="9" cy="7" r="4"/></svg>';
  t0 = performance.now();
  const mark = svgGeometry(USERS, {
    depthPx: 80,
    sizePx: 820,
    roundPx: 0,
    p2w,
    runner: '0.0.5',
  }) as THREE.BufferGeometry;
  out.plinkenMs = performance.now() - t0;
  const mm = new THREE.Mesh(mark, white);
  mm.position.set(0, 40 * p2w, 200 * p2w);
  out.plinken = extent([mm], true, 559);
  // handdrawn (0.0.13): vectorize(stroke_width 8, simplify 2, bridge 5, stitch 110, depth 70, size 780,
  // round 10), rotated x 12°, y −20° at t = 0
  const img = new Image();
  img.src = (window as unknown as { __img: string }).__img;
  await img.decode();
  t0 = performance.now();
  const svg = traceToSvg(rasterAtWorkingSize(img, 700), {
    ...VECTORIZE_DEFAULTS,
    strokeWidth: 8,
    simplify: 2,
    bridge: 5,
    stitch: 110,
  });
  const hd = svgGeometry(svg, { depthPx: 70, sizePx: 780, roundPx: 10, p2w, runner: '0.0.13' }) as THREE.BufferGeometry;
  out.handdrawnMs = performance.now() - t0;
  const hm = new THREE.Mesh(hd, white);
  hm.rotation.set((12 * Math.PI) / 180, (-20 * Math.PI) / 180, 0);
  out.handdrawn = extent([hm], true, Infinity, true);
  (out as Record<string, unknown>).handdrawnMask = lastMask;
  return out;
}

(window as unknown as { __result: Promise<unknown> }).__result = main().catch((e) => ({
  error: String(e?.stack ?? e),
}));
