// Golden hashes of our own compatibility corpus (test/corpus/*.cm, issue 37) per GL backend: every scene rendered
// small through the whole service and the real renderer, hashed as PNG bytes (goldenHash), compared with
// test/render/corpus-golden-hashes.json. Unlike test/render/golden.test.ts it needs nothing beside the repository
// (its images are examples/img/*). One service per backend serves every scene. The egl hashes are Mesa llvmpipe's:
// on a machine whose EGL is a GPU the egl cases skip, by name. Each frame must also show more than its background.
//
// Re-record (only after looking at the frames and deciding the change is intended; CORPUS_GOLDEN_OUT=/some/dir keeps
// the PNGs to look at):
//   UPDATE_GOLDEN=1 node --import tsx --test test/render/corpus-golden.test.ts
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { realRenderer, multipart, ownExampleImage, repoRoot, type TestApp } from '../helpers/app.js';
import { runJob } from '../helpers/job-client.js';
import { ownCorpusDir, ownExamplesDir } from '../helpers/shared.js';
import {
  BACKENDS,
  changedBytes,
  startBackend,
  expectedHash,
  goldenHash,
  recordedFile,
  type GoldenFile,
} from '../helpers/golden.js';

const GOLDEN_FILE = join(repoRoot, 'test', 'render', 'corpus-golden-hashes.json');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const OUT = process.env.CORPUS_GOLDEN_OUT;
const AT = 0.5;
const WIDTH = 160;
const HEIGHT = 90;

const files = readdirSync(ownCorpusDir)
  .filter((f) => f.endsWith('.cm'))
  .sort();
const keyOf = (f: string) => `${f.replace(/\.cm$/, '')}@${AT}/${WIDTH}x${HEIGHT}`;

const golden = JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as GoldenFile;
const recorded = {} as GoldenFile;

after(() => {
  if (UPDATE) writeFileSync(GOLDEN_FILE, `${JSON.stringify(recordedFile(golden, recorded), null, 2)}\n`);
});

test(
  'every corpus scene has a golden hash on every backend, and no hash is left for a scene that is gone',
  { skip: UPDATE && 'recording' },
  () => {
    assert.ok(files.length >= 15, `${files.length} corpus scenes`);
    for (const b of BACKENDS) {
      const keys = Object.keys(golden[b]?.frames ?? {});
      for (const f of files) assert.ok(keys.includes(keyOf(f)), `${b}: ${keyOf(f)} has no hash`);
      assert.deepEqual(
        keys.filter((k) => !files.some((f) => keyOf(f) === k)),
        [],
        `${b}: stale hashes`,
      );
      for (const [c, differ] of Object.entries(golden[b]?.cpu_classes ?? {}))
        assert.deepEqual(
          Object.keys(differ).filter((k) => !keys.includes(k)),
          [],
          `${b} (${c}): stale hashes`,
        );
    }
  },
);

/** Share of pixels that differ from the top-left one (the background) by more than a little. */
function notBackground(png: PNG): number {
  const d = png.data;
  let differ = 0;
  for (let i = 0; i < d.length; i += 4)
    if (Math.abs(d[i]! - d[0]!) + Math.abs(d[i + 1]! - d[1]!) + Math.abs(d[i + 2]! - d[2]!) > 24) differ++;
  return differ / (d.length / 4);
}

// The two backends draw at once (one Chromium each): on a 2-core runner that is about half the wall time.
describe('the corpus on both GL backends', { concurrency: BACKENDS.length }, () => {
  for (const backend of BACKENDS) {
    describe(`corpus on GL backend ${backend}`, () => {
      let t: TestApp | null = null;
      let unavailable: string | null = null;
      let assets: Record<string, string> = {};

      before(async () => {
        const started = await startBackend(backend, realRenderer(1, { gl: backend }));
        t = started.t;
        unavailable = started.unavailable;
        if (!t) return;
        recorded[backend] = started.recorded!;
        // images.cm reads the two images shipped in examples/img, mapped to /img/<name> as a client would
        const images = readdirSync(join(ownExamplesDir, 'img'));
        const { payload, headers } = multipart(
          images.map((f) => ({ name: 'file', filename: f, data: ownExampleImage(f) })),
        );
        const r = await t.app.inject({ method: 'POST', url: '/v1/assets', payload, headers });
        assert.equal(r.statusCode, 200, r.body);
        assets = Object.fromEntries(
          Object.entries(r.json().assets as Record<string, string>).map(([f, k]) => [`/img/${f}`, k]),
        );
        if (OUT) mkdirSync(OUT, { recursive: true });
      });

      after(async () => {
        await t?.close();
      });

      for (const f of files) {
        const key = keyOf(f);
        test(`${backend}: test/corpus/${f} at ${AT}s renders its golden bytes`, async (ctx) => {
          if (unavailable || !t) return ctx.skip(unavailable ?? `${backend} did not start`);
          const source = readFileSync(join(ownCorpusDir, f), 'utf8');
          const r = await runJob(t.app, '/v1/frame', {
            source,
            assets,
            params: { at: AT, width: WIDTH, height: HEIGHT },
          });
          assert.equal(r.json().status, 'ready', `${f}: ${r.body}`);
          const png = (await t.app.inject({ url: r.json().url })).rawPayload;
          if (OUT) writeFileSync(join(OUT, `${backend}-${f.replace(/\.cm$/, '')}.png`), png);
          const image = PNG.sync.read(png);
          assert.deepEqual([image.width, image.height], [WIDTH, HEIGHT]);
          const share = notBackground(image);
          assert.ok(share > 0.01, `${f}: only ${(share * 100).toFixed(2)} % of the frame differs from its background`);
          const hash = goldenHash(png);
          recorded[backend].frames[key] = hash;
          if (!UPDATE)
            assert.equal(
              hash,
              expectedHash(golden[backend], key),
              changedBytes(key, golden[backend], recorded[backend], 'test/render/corpus-golden.test.ts'),
            );
        });
      }
    });
  }
});
