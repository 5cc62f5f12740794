// handdrawn.jpg through the vectorize pipeline. Node has no JPEG decoder among our dependencies, so the
// image is decoded and scaled exactly as the viewer does it (a 2D canvas of the working size, browser
// smoothing) in the project's headless Chromium; the trace itself runs here in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as THREE from 'three';
import { PNG } from 'pngjs';
import { trace, svgGeometry, VECTORIZE_DEFAULTS } from '../../viewer/src/meshes/index';
import { bbox, near, P2W } from './helpers';

const CHROMIUM = '/usr/bin/chromium';
const JPG = '/work/shared/examples/img/handdrawn.jpg';

async function decodeInChromium(path: string, maxDim: number) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage();
    const b64 = readFileSync(path).toString('base64');
    return await page.evaluate(async ({ b64, maxDim }) => {
      const img = new Image();
      img.src = `data:image/jpeg;base64,${b64}`;
      await img.decode();
      const ow = img.naturalWidth, oh = img.naturalHeight;
      const s = Math.min(1, maxDim / Math.max(ow, oh));
      const w = Math.max(1, Math.round(ow * s)), h = Math.max(1, Math.round(oh * s));
      const c = document.createElement('canvas'); c.width = w; c.height = h;
      const ctx = c.getContext('2d')!;
      ctx.drawImage(img, 0, 0, w, h);
      return { ow, oh, w, h, png: c.toDataURL('image/png') };
    }, { b64, maxDim });
  } finally {
    await browser.close();
  }
}

test('handdrawn.jpg: traced to a handful of centrelines and extruded like the gallery source', { skip: !existsSync(CHROMIUM) || !existsSync(JPG) }, async () => {
  const d = await decodeInChromium(JPG, 700);
  assert.equal(d.ow, 1080); assert.equal(d.w, 700);
  // the canvas pixels travel back losslessly as a PNG (a 2 M-number JSON array would take seconds)
  const png = PNG.sync.read(Buffer.from(d.png.split(',')[1], 'base64'));
  assert.equal(png.width, d.w);
  const img = { width: d.w, height: d.h, data: new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), naturalWidth: d.ow, naturalHeight: d.oh };
  // the gallery's arguments: stroke_width 8, simplify 2.0, bridge 5, stitch 110
  const o = { ...VECTORIZE_DEFAULTS, strokeWidth: 8, simplify: 2.0, bridge: 5, stitch: 110 };
  const t0 = performance.now();
  const r = trace(img, o);
  const traceMs = performance.now() - t0;
  assert.match(r.svg, /viewBox="0 0 1080 1080"/);
  assert.match(r.svg, /stroke-width="8"/);
  assert.ok(r.polylines.length >= 1 && r.polylines.length < 40, `${r.polylines.length} polylines`);
  for (const l of r.polylines) for (const [x, y] of l) assert.ok(x >= 0 && y >= 0 && x < d.w && y < d.h);
  const t1 = performance.now();
  const g = svgGeometry(r.svg, { depthPx: 70, sizePx: 780, roundPx: 10, p2w: 12 * Math.tan(Math.PI * 14 / 180) / 1080, runner: '0.0.13' }) as THREE.BufferGeometry;
  const extrudeMs = performance.now() - t1;
  const b = bbox(g);
  near(b.max.y - b.min.y, 780 * P2W, 1e-6, 'size tall');
  console.log(`handdrawn: ${r.polylines.length} polylines, trace ${traceMs.toFixed(0)} ms, extrude ${extrudeMs.toFixed(0)} ms`);
  assert.ok(traceMs < 5000);
});
