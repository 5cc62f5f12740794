// Golden hashes per runner version (issue #4) and per GL backend: a few sources per version, rendered small through
// the whole service, hashed as PNG bytes (goldenHash: as one level-6 zlib stream, the form they were recorded in). A
// change that alters what a pinned source renders fails here.
// docs/runner-versions.md says what to do when it does (and how a released version stays frozen across dependency
// upgrades). SwiftShader's hashes are the reference runner's pixels; egl's are Mesa llvmpipe's (a GPU's EGL draws
// its own pixels, so on a machine whose EGL is a GPU the egl cases skip, by name).
//
// Re-record (only after looking at the frames and deciding the change is intended):
//   UPDATE_GOLDEN=1 node --import tsx --test test/render/golden.test.ts
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  realRenderer,
  example,
  exampleImage,
  multipart,
  repoRoot,
  hasCorpus,
  corpusSkip,
  type TestApp,
} from '../helpers/app.js';
import { runJob } from '../helpers/job-client.js';
import { RUNNERS } from '../../src/lang/runners.js';
import {
  BACKENDS,
  changedBytes as changed,
  startBackend,
  expectedHash,
  goldenHash,
  recordedFile,
  type GoldenFile,
} from '../helpers/golden.js';

const GOLDEN_FILE = join(repoRoot, 'test', 'render', 'golden-hashes.json');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

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

const golden = JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as GoldenFile;
const recorded = {} as GoldenFile;

after(() => {
  if (UPDATE) writeFileSync(GOLDEN_FILE, `${JSON.stringify(recordedFile(golden, recorded), null, 2)}\n`);
});

test('every available runner version has golden frames on every backend', () => {
  const covered = new Set(CASES.map((c) => c.runner));
  for (const r of RUNNERS.filter((v) => v.available))
    assert.ok(covered.has(r.version), `runner ${r.version} has no golden frame`);
  for (const b of BACKENDS)
    for (const c of CASES) assert.ok(golden[b]?.frames[keyOf(c)], `${b}: ${keyOf(c)} has no hash`);
});

const keyOf = (c: (typeof CASES)[number]) => `${c.runner}/${c.example}@${c.at}/${c.width}x${c.height}`;

for (const backend of BACKENDS) {
  describe(`GL backend ${backend}`, () => {
    let t: TestApp | null = null;
    let assets: Record<string, string> = {};
    /** why this backend's cases cannot run here (no EGL that draws, or an EGL that is not llvmpipe) */
    let unavailable: string | null = null;

    before(async () => {
      const started = await startBackend(backend, realRenderer(1, { gl: backend }));
      t = started.t;
      unavailable = started.unavailable;
      if (!t) return;
      recorded[backend] = started.recorded!;
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
      await t?.close();
    });

    for (const c of CASES) {
      const key = keyOf(c);
      test(
        `${backend}: runner ${c.runner}: ${c.example} at ${c.at}s renders its golden bytes`,
        { skip: corpusSkip(`examples/${c.example}.cm`) },
        async (ctx) => {
          if (unavailable || !t) return ctx.skip(unavailable ?? `${backend} did not start`);
          const source = repin(example(`${c.example}.cm`), c.runner);
          const r = await runJob(t.app, '/v1/frame', {
            source,
            params: { at: c.at, width: c.width, height: c.height },
            assets,
          });
          assert.equal(r.statusCode, 200, r.body);
          const png = (await t.app.inject({ url: r.json().url })).rawPayload;
          const hash = goldenHash(png);
          recorded[backend].frames[key] = hash;
          if (!UPDATE)
            assert.equal(
              hash,
              expectedHash(golden[backend], key),
              changed(key, golden[backend], recorded[backend], 'test/render/golden.test.ts'),
            );
        },
      );
    }
  });
}

test('versions that draw a feature differently give different bytes (the pin is honoured)', { skip: UPDATE }, () => {
  for (const b of BACKENDS) {
    const f = golden[b].frames;
    assert.notEqual(f['0.0.1/homepage@0.5/320x180'], f['0.0.2/homepage@0.5/320x180'], b);
    assert.notEqual(f['0.0.7/plinken-svg@1.5/240x240'], f['0.0.10/plinken-svg@1.5/240x240'], b);
  }
});
