// Our own examples (examples/*.cm) through the whole service and the real renderer: each renders a small frame at
// 0 and at half its duration, and every frame shows a picture (more than one colour), not just its background.
// Set OWN_EXAMPLES_OUT=/some/dir to keep the PNGs and look at them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { startApp, realRenderer, multipart, ownExample, ownExampleImage, type TestApp } from '../helpers/app.js';
import { runJob } from '../helpers/job-client.js';
import { ownExamplesDir } from '../helpers/shared.js';
import { compile } from '../../src/lang/index.js';

const files = readdirSync(ownExamplesDir)
  .filter((f) => f.endsWith('.cm'))
  .sort();
const OUT = process.env.OWN_EXAMPLES_OUT;

let t: TestApp;
let assets: Record<string, string>;
before(async () => {
  t = await startApp({ renderer: realRenderer() });
  // image.cm reads /img/sunset.png: upload the image shipped beside it and map it to that path, as a client would.
  const images = readdirSync(join(ownExamplesDir, 'img'));
  const { payload, headers } = multipart(images.map((f) => ({ name: 'file', filename: f, data: ownExampleImage(f) })));
  const r = await t.app.inject({ method: 'POST', url: '/v1/assets', payload, headers });
  assert.equal(r.statusCode, 200, r.body);
  assets = Object.fromEntries(
    Object.entries(r.json().assets as Record<string, string>).map(([f, k]) => [`/img/${f}`, k]),
  );
  if (OUT) mkdirSync(OUT, { recursive: true });
});
after(() => t.close());

/** Distinct RGB colours in the frame, and the share of pixels that differ from the top-left corner (the background). */
function inspect(png: PNG): { colours: number; notBackground: number } {
  const seen = new Set<number>();
  const d = png.data;
  let differ = 0;
  for (let i = 0; i < d.length; i += 4) {
    seen.add((d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!);
    if (Math.abs(d[i]! - d[0]!) + Math.abs(d[i + 1]! - d[1]!) + Math.abs(d[i + 2]! - d[2]!) > 24) differ++;
  }
  return { colours: seen.size, notBackground: differ / (d.length / 4) };
}

for (const f of files) {
  test(`examples/${f} renders a picture at 0 and at half its duration (320x180)`, async () => {
    const source = ownExample(f);
    const half = compile(source).program!.durationSeconds / 2;
    for (const at of [0, half]) {
      const r = await runJob(t.app, '/v1/frame', { source, assets, params: { at, width: 320, height: 180 } });
      assert.equal(r.json().status, 'ready', `${f} at ${at}: ${r.body}`);
      const bytes = (await t.app.inject({ url: r.json().url })).rawPayload;
      if (OUT) writeFileSync(join(OUT, `${f.replace(/\.cm$/, '')}@${at}.png`), bytes);
      const png = PNG.sync.read(bytes);
      assert.deepEqual([png.width, png.height], [320, 180]);
      const { colours, notBackground } = inspect(png);
      assert.ok(colours > 1, `${f} at ${at}: a single colour`);
      // something besides the background covers at least 1 % of the frame
      assert.ok(
        notBackground > 0.01,
        `${f} at ${at}: only ${(notBackground * 100).toFixed(2)} % differs from the background`,
      );
    }
  });
}
