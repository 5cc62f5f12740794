// The Storage port's conformance suite (src/server/storage/storage.ts): the same cases against both adapters, a
// directory on disk (file:) and an S3-compatible bucket (s3://, a real s3rver on a loopback port, test/helpers/s3.ts),
// each opened as the service opens it (openStorage). Each case is what the port promises the output and asset stores:
// put and get whole and by byte range, stat, copy, list at the root and under a prefix, remove (with everything under
// the key), a scratch file committed by upload and fetched back by download, a failed render's partial files dropped
// (dropScratch) without the stored bytes, and a missing key answered, not thrown. Only the port's members are tested
// here: what a bucket alone has (presigned URLs, its probe) is tested in s3.test.ts and hung-bucket.test.ts.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { TestS3 } from '../../helpers/s3.js';
import { loadStorage, openStorage, type StorageConfig } from '../../../src/server/storage/data-stores.js';
import type { Storage } from '../../../src/server/storage/storage.js';
import { PARTIAL_SUFFIXES } from '../../../src/render/renderer-port.js';

let s3: TestS3;
let dir: string;
before(async () => {
  s3 = await TestS3.start();
  dir = await mkdtemp(join(tmpdir(), 'cmr-storage-conformance-'));
});
after(async () => {
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

const base = (dataDir: string): StorageConfig => ({
  dataDir,
  storageUrl: 'file:',
  s3ForcePathStyle: true,
  storageRequestTimeoutMs: 5_000,
  storageDeadlineMs: 15_000,
});
const ADAPTERS: [string, () => Promise<Storage>][] = [
  ['disk', async () => openStorage(base(join(dir, 'disk')), 'outputs')],
  [
    's3',
    async () => {
      const config = { ...base(join(dir, 's3')), ...s3.useInProcess('conformance') };
      await loadStorage(config);
      return openStorage(config, 'outputs');
    },
  ],
];

async function bytesOf(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(Buffer.from(c as Buffer));
  return Buffer.concat(parts);
}

const BYTES = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 251));

for (const [name, open] of ADAPTERS) {
  describe(`Storage: ${name}`, () => {
    let st: Storage;
    before(async () => {
      st = await open();
      await st.init();
    });

    test('put, then get whole and by an inclusive byte range, and stat its size', async () => {
      await st.put('a.bin', BYTES);
      assert.ok((await bytesOf(await st.get('a.bin'))).equals(BYTES));
      assert.ok((await bytesOf(await st.get('a.bin', { start: 10, end: 19 }))).equals(BYTES.subarray(10, 20)));
      const e = (await st.stat('a.bin'))!;
      assert.equal(e.bytes, BYTES.length);
      assert.equal(e.isFile, true);
      assert.ok(e.mtimeMs > 0);
    });

    test('a put over a key replaces its bytes whole', async () => {
      await st.put('b.bin', BYTES);
      await st.put('b.bin', Buffer.from('short'));
      assert.equal((await bytesOf(await st.get('b.bin'))).toString(), 'short');
      assert.equal((await st.stat('b.bin'))!.bytes, 5);
    });

    test('copy makes a second key with the same bytes; the first stays', async () => {
      await st.put('c.bin', BYTES);
      await st.copy('c.bin', 'c-copy.bin');
      assert.ok((await bytesOf(await st.get('c-copy.bin'))).equals(BYTES));
      assert.ok((await bytesOf(await st.get('c.bin'))).equals(BYTES));
    });

    test('list names the keys at the root and under a prefix', async () => {
      await st.put('l1.bin', BYTES);
      await st.put('job-x/0.mp4', BYTES);
      await st.put('job-x/1.mp4', BYTES);
      const root = await st.list();
      assert.ok(root.includes('l1.bin'), JSON.stringify(root));
      assert.deepEqual((await st.list('job-x')).sort(), ['job-x/0.mp4', 'job-x/1.mp4']);
    });

    test('remove takes the key and everything under it; a missing key is no error', async () => {
      await st.put('r.bin', BYTES);
      await st.put('r/inner.bin', BYTES);
      await st.remove('r.bin');
      await st.remove('r');
      assert.equal(await st.stat('r.bin'), undefined);
      assert.deepEqual(await st.list('r'), []);
      await st.remove('never-was.bin');
      assert.equal(await st.stat('never-was.bin'), undefined);
    });

    test('a scratch file is committed by upload (the local file gone after) and read back by download', async () => {
      const scratch = await st.scratchPath('u.bin');
      await writeFile(scratch, BYTES);
      await st.upload('u.bin', scratch);
      assert.ok((await bytesOf(await st.get('u.bin'))).equals(BYTES));
      const into = await mkdtemp(join(dir, `dl-${name}-`));
      const local = await st.download('u.bin', into);
      assert.ok((await readFile(local)).equals(BYTES));
    });

    test("dropScratch takes the partial files a failed render left beside a key's scratch file, never the stored bytes", async () => {
      await st.put('f.bin', BYTES);
      const partials = PARTIAL_SUFFIXES.map(async (s) => {
        const p = `${await st.scratchPath('f.bin')}${s}`;
        await writeFile(p, 'partial');
        return p;
      });
      const left = await Promise.all(partials);
      await st.dropScratch('f.bin');
      for (const p of left) await assert.rejects(access(p), `${p} is gone`);
      assert.ok((await bytesOf(await st.get('f.bin'))).equals(BYTES));
    });

    test('get of a missing key rejects; stat answers undefined', async () => {
      assert.equal(await st.stat('missing.bin'), undefined);
      await assert.rejects(async () => bytesOf(await st.get('missing.bin')));
    });
  });
}
