// The S3 storage's own paths against s3rver (test/helpers/s3.ts): an upload over one part (5 MiB) goes up in parts
// and comes back whole; a part the server refuses fails the upload with StorageUnavailable, the multipart upload is
// aborted (s3rver has no AbortMultipartUpload: the hook answers it and records that it was asked) and no object
// appears; a key under a job's prefix goes with it; a download lands in the caller's scratch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Storage, parseS3Url, s3Client } from '../../../src/server/storage/s3-storage.js';
import { StorageUnavailable } from '../../../src/server/storage/storage.js';
import { TestS3 } from '../../helpers/s3.js';

let s3: TestS3;
let store: S3Storage;
const work = mkdtempSync(join(tmpdir(), 'cmr-s3-mp-'));
const client = () => s3Client(true, 5_000);

before(async () => {
  s3 = await TestS3.start();
  s3.useInProcess();
  store = new S3Storage(client(), { bucket: s3.bucket, prefix: 'mp/' }, join(work, 'scratch'));
  await store.init();
});
after(async () => {
  await s3?.close();
  await rm(work, { recursive: true, force: true });
});

const MIB = 1024 * 1024;

test('s3://bucket/prefix names the bucket and a prefix ending in "/"', () => {
  assert.deepEqual(parseS3Url('s3://b'), { bucket: 'b', prefix: '' });
  assert.deepEqual(parseS3Url('s3://b/'), { bucket: 'b', prefix: '' });
  assert.deepEqual(parseS3Url('s3://b/x/y/'), { bucket: 'b', prefix: 'x/y/' });
  assert.throws(() => parseS3Url('s3:/b'));
});

test('an upload of 11 MiB goes up in three parts and downloads back the same bytes; the scratch file goes', async () => {
  const bytes = randomBytes(11 * MIB);
  const local = await store.scratchPath('big.mp4');
  writeFileSync(local, bytes);
  const seen = s3.requests.length;
  await store.upload('big.mp4', local);
  const parts = s3.requests.slice(seen).filter((r) => r.startsWith('PUT') && r.includes('partNumber='));
  assert.equal(parts.length, 3, 'three parts of at most 5 MiB');
  assert.ok(!existsSync(local), 'the scratch file is gone once uploaded');
  assert.equal((await store.stat('big.mp4'))?.bytes, bytes.length);
  const back = await store.download('big.mp4', join(work, 'dl'));
  assert.ok(readFileSync(back).equals(bytes));
  await store.remove('big.mp4');
  assert.equal(await store.stat('big.mp4'), undefined);
});

test('an upload of exactly 5 MiB is one PUT; one byte more is multipart', async () => {
  for (const [n, multipart] of [
    [5 * MIB, false],
    [5 * MIB + 1, true],
  ] as const) {
    const local = await store.scratchPath('edge.bin');
    writeFileSync(local, randomBytes(n));
    const seen = s3.requests.length;
    await store.upload('edge.bin', local);
    const asked = s3.requests.slice(seen);
    assert.equal(
      asked.some((r) => r.includes('uploads')),
      multipart,
      `${n} bytes: ${asked.join(', ')}`,
    );
    assert.equal((await store.stat('edge.bin'))?.bytes, n);
  }
  await store.remove('edge.bin');
});

test('a part refused: StorageUnavailable, the multipart upload is aborted, no object appears', async () => {
  const aborted: string[] = [];
  s3.hooks.push((req, res) => {
    const url = req.url ?? '';
    if (req.method === 'PUT' && url.includes('partNumber=2')) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/xml' }).end('<Error><Code>InternalError</Code></Error>');
      return true;
    }
    if (req.method === 'DELETE' && url.includes('uploadId=')) {
      aborted.push(url);
      res.writeHead(204).end();
      return true;
    }
    return false;
  });
  try {
    const local = await store.scratchPath('cut.mp4');
    writeFileSync(local, randomBytes(11 * MIB));
    await assert.rejects(store.upload('cut.mp4', local), StorageUnavailable);
    assert.equal(aborted.length, 1, 'AbortMultipartUpload asked once');
    assert.match(aborted[0]!, /\/mp\/cut\.mp4\?uploadId=/);
  } finally {
    s3.hooks.pop();
  }
  assert.equal(await store.stat('cut.mp4'), undefined, 'no object under the key');
  await store.dropScratch('cut.mp4');
  assert.ok(!existsSync(await store.scratchPath('cut.mp4')));
});

test('remove(key) takes the keys under key/ too (a job segments); list() shows a job as one name', async () => {
  await store.put('seg/0000.ts', Buffer.from('a'));
  await store.put('seg/0001.ts', Buffer.from('b'));
  assert.ok((await store.list()).includes('seg'));
  assert.deepEqual((await store.list('seg')).sort(), ['seg/0000.ts', 'seg/0001.ts']);
  await store.remove('seg');
  assert.deepEqual(await store.list('seg'), []);
});

test('a bucket down: every call is a StorageUnavailable within seconds, not a hang', async () => {
  await s3.stop();
  try {
    const t0 = performance.now();
    await assert.rejects(store.stat('x'), StorageUnavailable);
    await assert.rejects(store.put('x', Buffer.from('x')), StorageUnavailable);
    await assert.rejects(store.list(), StorageUnavailable);
    assert.ok(performance.now() - t0 < 30_000);
  } finally {
    await s3.start();
  }
  await store.put('x', Buffer.from('x'));
  assert.equal((await store.stat('x'))?.bytes, 1);
});
