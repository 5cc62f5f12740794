// Golden hashes per runner version (issue #4): a few sources per version, rendered small through the whole service,
// hashed as PNG bytes. A change that alters what a pinned source renders fails here. docs/runner-versions.md says
// what to do when it does (and how a released version stays frozen across dependency upgrades).
//
// Re-record (only after looking at the frames and deciding the change is intended):
//   UPDATE_GOLDEN=1 node --import tsx --test test/render/golden.test.ts
import { test, before, after } from 'node:test';
import { defaultChromiumPath } from '../../src/render/chromium.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import {
  startApp,
  realRenderer,
  runJob,
  example,
  exampleImage,
  multipart,
  repoRoot,
  hasCorpus,
  corpusSkip,
  type TestApp,
} from '../helpers/app.js';
import { RUNNERS } from '../../src/lang/runners.js';

const GOLDEN_FILE = join(repoRoot, 'test', 'render', 'golden-hashes.json');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

interface GoldenFile {
  chromium: string;
  frames: Record<string, string>;
}

/** Which example, at which frame time and size, stands for which runner version (each exercises what that version added or changed). */
const CASES: { runner: string; example: string; at: number; width: number; height: number }[] = [
  { runner: '0.0.1', example: 'docs-api-quick', at: 0, width: 320, height: 180 },
  { runner: '0.0.1', example: 'homepage', at: 0.5, width: 320, height: 180 }, // first character only, 12-segment curves
  { runner: '0.0.2', example: 'homepage', at: 0.5, width: 320, height: 180 },
  { runner: '0.0.2', example: 'lava-lamp', at: 1.5, width: 320, height: 180 },
  { runner: '0.0.3', example: 'extrude-path', at: 1.5, width: 320, height: 180 },
  { runner: '0.0.3', example: 'bouncing-ball', at: 0.3, width: 320, height: 180 },
  { runner: '0.0.3', example: 'title', at: 1.5, width: 320, height: 180 },
  { runner: '0.0.5', example: 'plinken-svg', at: 1.5, width: 240, height: 240 }, // first svg algorithm, bloom, opacity, gradient
  { runner: '0.0.6', example: 'plinken-svg', at: 1.5, width: 240, height: 240 },
  { runner: '0.0.7', example: 'plinken-svg', at: 1.5, width: 240, height: 240 }, // per-piece thickening
  { runner: '0.0.10', example: 'plinken-svg', at: 1.5, width: 240, height: 240 }, // outline polygons + ExtrudeGeometry
  { runner: '0.0.12', example: 'plinken-svg', at: 0, width: 240, height: 240 },
  { runner: '0.0.13', example: 'handdrawn', at: 1.5, width: 240, height: 240 },
];

const repin = (source: string, runner: string) => source.replace(/runner\s+"[^"]*"\s*;/, `runner "${runner}";`);
const chromiumVersion = () => execFileSync(defaultChromiumPath(), ['--version'], { encoding: 'utf8' }).trim();

/**
 * The pixels are what the goldens promise, not the build string: a newer Chromium that draws the same bytes passes.
 * One that draws other bytes fails with both builds named, so the upgrade is a visible decision.
 */
function changedBytes(key: string): string {
  const now = chromiumVersion();
  const build = now === golden.chromium ? `the same Chromium (${now})` : `"${golden.chromium}", this is "${now}"`;
  return (
    `${key}: the PNG bytes changed (recorded with ${build}). If only the browser changed and ` +
    '`npm run compare` shows the frames still match the reference, re-record with ' +
    '`UPDATE_GOLDEN=1 node --import tsx --test test/render/golden.test.ts` (docs/runner-versions.md)'
  );
}

let t: TestApp;
let assets: Record<string, string>;
const recorded: GoldenFile = { chromium: '', frames: {} };
let golden: GoldenFile;

before(async () => {
  golden = JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as GoldenFile;
  t = await startApp({ renderer: realRenderer() });
  assets = {};
  if (!hasCorpus) return; // the cases below say they skip, by name
  const files = ['earth_4k.jpg', 'starry_night.jpg', 'handdrawn.jpg'];
  const { payload, headers } = multipart(files.map((f) => ({ name: 'file', filename: f, data: exampleImage(f) })));
  const r = await t.app.inject({ method: 'POST', url: '/v1/assets', payload, headers });
  assert.equal(r.statusCode, 200, r.body);
  assets = Object.fromEntries(
    Object.entries(r.json().assets as Record<string, string>).map(([f, k]) => [`/img/${f}`, k]),
  );
});

after(async () => {
  await t.close();
  if (UPDATE) {
    recorded.chromium = chromiumVersion();
    writeFileSync(GOLDEN_FILE, `${JSON.stringify(recorded, null, 2)}\n`);
  }
});

test('every available runner version has golden frames', () => {
  const covered = new Set(CASES.map((c) => c.runner));
  for (const r of RUNNERS.filter((v) => v.available))
    assert.ok(covered.has(r.version), `runner ${r.version} has no golden frame`);
});

for (const c of CASES) {
  const key = `${c.runner}/${c.example}@${c.at}/${c.width}x${c.height}`;
  test(
    `runner ${c.runner}: ${c.example} at ${c.at}s renders its golden bytes`,
    { skip: corpusSkip(`examples/${c.example}.cm`) },
    async () => {
      const source = repin(example(`${c.example}.cm`), c.runner);
      const r = await runJob(t.app, '/v1/frame', {
        source,
        params: { at: c.at, width: c.width, height: c.height },
        assets,
      });
      assert.equal(r.statusCode, 200, r.body);
      const png = (await t.app.inject({ url: r.json().url })).rawPayload;
      const hash = createHash('sha256').update(png).digest('hex');
      recorded.frames[key] = hash;
      if (!UPDATE) assert.equal(hash, golden.frames[key], changedBytes(key));
    },
  );
}

test('versions that draw a feature differently give different bytes (the pin is honoured)', { skip: UPDATE }, () => {
  const f = golden.frames;
  assert.notEqual(f['0.0.1/homepage@0.5/320x180'], f['0.0.2/homepage@0.5/320x180']);
  assert.notEqual(f['0.0.7/plinken-svg@1.5/240x240'], f['0.0.10/plinken-svg@1.5/240x240']);
});
