// Row 8 of issue 32: every job POST read and hashed every asset its map named, and the map was unbounded (200 paths
// naming one 25 MiB asset: 202 after 32.9 s, 12.8 s of API CPU). Now a job's map names at most
// LIMITS.assets.maxPerJob paths (400 invalid_assets past it), the SHA-256 of an asset is computed once at its upload
// and kept beside it (in a directory and in a bucket), and admission looks each distinct key up once. Asserted on
// what the asset store counts (hashes computed, kept hashes read, local files asked), never on time; and the render
// cache's key still means what it meant: the in-source paths with the SHA-256 of their bytes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { multipart, realRenderer, startApp, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { TestS3 } from '../../helpers/s3.js';
import { prng } from '../../helpers/prng.js';
import { encodePng } from '../../../src/render/png.js';
import { LIMITS } from '../../../src/contract/limits.js';
import { newestRunner } from '../../../src/lang/runners.js';

let s3: TestS3;
let onFile: TestApp;
let onBucket: TestApp;
const renderer = realRenderer();

before(async () => {
  s3 = await TestS3.start();
  onFile = await startApp({ renderer, ownsRenderer: false, config: { renderCache: true } });
  onBucket = await startApp({
    renderer,
    ownsRenderer: false,
    config: { ...s3.useInProcess('admission'), renderCache: true },
  });
});
after(async () => {
  await onFile?.close();
  await onBucket?.close();
  await renderer.close();
  await s3?.close();
});

const MAX = LIMITS.assets.maxPerJob;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A PNG of random pixels (incompressible), `side` pixels square: a large image a page can still draw. */
function noisePng(side: number): Buffer {
  const next = prng(32);
  const rgba = new Uint8Array(side * side * 4);
  for (let i = 0; i < rgba.length; i += 4) {
    const v = (next() * 2 ** 32) >>> 0;
    rgba[i] = v & 255;
    rgba[i + 1] = (v >>> 8) & 255;
    rgba[i + 2] = (v >>> 16) & 255;
    rgba[i + 3] = (v >>> 24) | 128;
  }
  return encodePng(rgba, side, side, 1);
}
// 2,550 x 2,550 of noise: just under the 25 MiB a file may be
const BIG = noisePng(2550);

async function upload(t: TestApp, bytes: Buffer): Promise<string> {
  const m = multipart([{ name: 'f', filename: 'a.png', data: bytes }]);
  const r = await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().assets['a.png'];
}

// the job draws no image: what is measured is the admission of its map, not a 25 MiB texture in the page
const SOURCE = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  rect(width: 64px, height: 64px, fill: #ff3399)\n}\n`;
/** `n` in-source paths, every one naming `key` */
const paths = (n: number, key: string) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`/img/p${i}.png`, key]));

for (const where of ['a directory', 'a bucket'] as const) {
  test(
    `${where}: ${MAX} paths naming one 25 MiB asset are admitted with no hashing and one look-up; ${MAX + 1} are 400 invalid_assets`,
    {
      timeout: 180_000,
    },
    async () => {
      const t = where === 'a directory' ? onFile : onBucket;
      const store = t.app.assetStore;
      assert.ok(BIG.length > 24 * 1024 * 1024 && BIG.length <= LIMITS.assets.maxFileBytes, String(BIG.length));
      const key = await upload(t, BIG);
      // the upload hashed the bytes it had in hand, once
      assert.equal(store.reads.hashed, 1);

      const over = await post(t.app, '/v1/frame', {
        source: SOURCE,
        params: { width: 64 },
        assets: paths(MAX + 1, key),
      });
      assert.equal(over.statusCode, 400, over.body);
      assert.equal(over.json().code, 'invalid_assets');
      assert.match(over.json().error, new RegExp(`at most ${MAX} in-source paths`));

      const before = { ...store.reads };
      const r = await post(t.app, '/v1/frame', { source: SOURCE, params: { width: 64 }, assets: paths(MAX, key) });
      assert.equal(r.statusCode, 202, r.body);
      const job = (await waitJob(t.app, r.json().job_id, 120_000)).json();
      assert.equal(job.status, 'ready', JSON.stringify(job));
      // no asset bytes were hashed again; the kept hash was read once (the render cache's key); the asset came down
      // once, for the admission estimate and the render alike (issue 51 row 1), whatever the number of paths naming it
      assert.equal(store.reads.hashed, before.hashed);
      assert.equal(store.reads.hashesRead, before.hashesRead + 1);
      assert.equal(store.reads.downloads, before.downloads + 1);

      // the render cache's key means what it meant: the paths with the SHA-256 of their bytes
      const rec = await t.app.jobs.get(job.job_id);
      const canonical = JSON.stringify([
        1,
        'frame',
        SOURCE,
        newestRunner(),
        [['width', 64]],
        Object.keys(paths(MAX, key))
          .sort()
          .map((p) => [p, sha(BIG)]),
      ]);
      assert.equal(rec?.cache_key, sha(Buffer.from(canonical)));
      // and the same bytes uploaded again are the same input: the identical job is a cache hit
      const again = await upload(t, BIG);
      const hit = await post(t.app, '/v1/frame', { source: SOURCE, params: { width: 64 }, assets: paths(MAX, again) });
      const hitJob = (await waitJob(t.app, hit.json().job_id)).json();
      assert.equal(hitJob.cached, true, JSON.stringify(hitJob));
    },
  );
}

test('an asset stored without its hash (by an older version) is hashed once, then its hash is kept', async () => {
  const t = onFile;
  const store = t.app.assetStore;
  const key = await upload(t, noisePng(64));
  await store['files'].remove(`${key}.sha256`);
  const before = store.reads.hashed;
  const body = { source: SOURCE, params: { width: 48 }, assets: paths(3, key) };
  for (let i = 0; i < 2; i++) {
    const r = await post(t.app, '/v1/frame', body);
    assert.equal(r.statusCode, 202, r.body);
    await waitJob(t.app, r.json().job_id, 60_000);
  }
  assert.equal(store.reads.hashed, before + 1);
});
