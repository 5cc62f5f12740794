// Silhouette extents of the builders' meshes, drawn in the project's headless Chromium with the viewer's
// fixed camera, against the same extents measured on the reference frames (viewer.md §10).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { FONT_PATH } from './helpers';

const CHROMIUM = '/usr/bin/chromium';
const REF = '/work/shared/reference';

function refExtent(name: string, minDiff = 40) {
  const p = PNG.sync.read(readFileSync(`${REF}/${name}.png`));
  const bg = [p.data[0], p.data[1], p.data[2]];
  let r0 = 1e9, r1 = -1, c0 = 1e9, c1 = -1;
  for (let y = 0; y < p.height; y++) for (let x = 0; x < p.width; x++) {
    const i = (y * p.width + x) * 4;
    if (Math.abs(p.data[i] - bg[0]) + Math.abs(p.data[i + 1] - bg[1]) + Math.abs(p.data[i + 2] - bg[2]) > minDiff) {
      r0 = Math.min(r0, y); r1 = Math.max(r1, y); c0 = Math.min(c0, x); c1 = Math.max(c1, x);
    }
  }
  return { rows: [r0, r1], cols: [c0, c1] };
}

test('silhouettes match the reference frames at t = 0 (glyphs, title, star path, lava lamp)', { skip: !existsSync(CHROMIUM) || !existsSync(REF) }, async () => {
  const { build } = await import('esbuild');
  const bundle = await build({ entryPoints: [new URL('./browser/silhouettes.ts', import.meta.url).pathname], bundle: true, format: 'iife', write: false, logLevel: 'silent' });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
  try {
    const page = await browser.newPage();
    await page.setContent('<html><body></body></html>');
    const font = `data:font/ttf;base64,${readFileSync(FONT_PATH).toString('base64')}`;
    await page.evaluate((f) => { (window as unknown as { __font: string }).__font = f; }, font);
    await page.addScriptTag({ content: bundle.outputFiles[0].text });
    const res = await page.evaluate(() => (window as unknown as { __result: Promise<any> }).__result);
    assert.ok(!res.error, res.error);
    const close = (name: string, got: { rows: number[]; cols: number[] }, want: { rows: number[]; cols: number[] }, tol: number) => {
      for (let k = 0; k < 2; k++) {
        assert.ok(Math.abs(got.rows[k] - want.rows[k]) <= tol, `${name} rows ${got.rows} vs reference ${want.rows}`);
        assert.ok(Math.abs(got.cols[k] - want.cols[k]) <= tol, `${name} cols ${got.cols} vs reference ${want.cols}`);
      }
    };
    close('homepage C', res.homepage, refExtent('homepage@0.0'), 2);
    close('probe C (0.0.1)', res.probe, refExtent('fixture-homepage-probe@0.0'), 2);
    close('title', res.title, refExtent('title@0.0'), 3);
    close('star', res.star, refExtent('extrude-path@0.0'), 2);
    close('lava lamp', res.lava, refExtent('lava-lamp@0.0'), 4);
    // the blue mark's pixels in the upper half of plinken-svg@0.0 (rows 34-496, cols 171-908)
    close('plinken mark (upper half)', res.plinken, { rows: [34, 496], cols: [171, 908] }, 3);
    console.log(JSON.stringify({ homepage: res.homepage, probe: res.probe, title: res.title, star: res.star, lava: res.lava, plinken: res.plinken, lavaRef: refExtent('lava-lamp@0.0') }));
    console.log(`build: homepage C ${res.homepageMs.toFixed(1)} ms, title 7 glyphs ${res.titleMs.toFixed(1)} ms, plinken svg ${res.plinkenMs.toFixed(1)} ms`);
  } finally {
    await browser.close();
  }
});
