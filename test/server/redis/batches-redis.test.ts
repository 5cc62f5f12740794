// Batches with REDIS_URL: two API processes and two render workers on one real redis-server and one shared DATA_DIR.
// A 20-row frame batch POSTed to API A is a set of jobs on the BullMQ queue: both workers render rows of it (their
// logs say which), API B answers its view and streams its archive (read with a ZIP library), and its events stream on
// B ends with `end`; its Idempotency-Key posted again to B answers the same batch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import yauzl from 'yauzl';
import { TestRedis } from '../../helpers/redis.js';
import { startProcess, type StartedProcess } from '../../helpers/started-process.js';
import { until } from '../../helpers/until.js';

let redis: TestRedis;
let dataDir: string;
const procs: StartedProcess[] = [];
let apiA: StartedProcess;
let apiB: StartedProcess;
let workers: StartedProcess[] = [];

const env = () => ({ REDIS_URL: redis.url, DATA_DIR: dataDir, STALLED_INTERVAL_MS: '5000' });
before(async () => {
  redis = await TestRedis.start();
  dataDir = await mkdtemp(join(tmpdir(), 'cmr-batch-redis-'));
  const started = await Promise.all([
    startProcess('api', { ...env(), RENDER_CONCURRENCY: '0' }),
    startProcess('api', { ...env(), RENDER_CONCURRENCY: '0' }),
    startProcess('worker', env()),
    startProcess('worker', env()),
  ]);
  procs.push(...started);
  apiA = started[0]!;
  apiB = started[1]!;
  workers = started.slice(2);
});
after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await redis?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const CARD =
  'runner "0.0.3";\nuse std.shapes.*;\nscene card(fill: Color = #808080) -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: fill)]\n}\n';
const hex = (n: number) => n.toString(16).padStart(2, '0');
const colour = (i: number): [number, number, number] => [(i * 53) % 256, (i * 97 + 40) % 256, 255 - ((i * 31) % 256)];

function unzip(buf: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, s) => {
          if (e || !s) return reject(e);
          const parts: Buffer[] = [];
          s.on('data', (c: Buffer) => parts.push(c));
          s.on('end', () => {
            out.set(entry.fileName, Buffer.concat(parts));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

test('a 20-row batch over two workers: both render rows, the view, events and archive come from the other API', async () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({
    name: `row-${i}`,
    args: { fill: `#${colour(i).map(hex).join('')}` },
  }));
  const body = JSON.stringify({ kind: 'frame', source: CARD, params: { width: 64, height: 36 }, rows });
  const headers = { 'content-type': 'application/json', 'idempotency-key': 'redis-batch-1' };
  const posted = await fetch(`${apiA.url}/v1/batches`, { method: 'POST', headers, body });
  assert.equal(posted.status, 202);
  const created = await posted.json();
  const id = created.batch_id;
  const replay = await (await fetch(`${apiB.url}/v1/batches`, { method: 'POST', headers, body })).json();
  assert.equal(replay.batch_id, id, 'the Idempotency-Key answers the same batch from either API');

  // the events stream on B ends with the final view
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 120_000);
  const stream = await fetch(`${apiB.url}/v1/batches/${id}/events`, { signal: ctl.signal });
  const text = await stream.text();
  clearTimeout(timer);
  assert.match(text, /event: end\ndata: \{[^\n]*"status":"ready"/);

  let view: any;
  await until(
    () => `batch ${id} ready on B (${JSON.stringify(view?.counts)})`,
    async () => {
      view = await (await fetch(`${apiB.url}/v1/batches/${id}`)).json();
      return view.status !== 'pending';
    },
    60_000,
  );
  assert.equal(view.status, 'ready', JSON.stringify(view.counts));
  assert.deepEqual(view.counts, { pending: 0, ready: 20, error: 0 });

  // both workers rendered rows of this batch (each logs job_ready for the rows it ended)
  const ids = new Set(created.jobs.map((j: { job_id: string }) => j.job_id));
  const byWorker = workers.map((w) => w.lines.filter((l) => l.event === 'job_ready' && ids.has(l.job_id)).length);
  assert.equal(
    byWorker.reduce((a, b) => a + b, 0),
    20,
  );
  assert.ok(
    byWorker.every((n) => n > 0),
    `rows per worker: ${byWorker}`,
  );

  const zip = await fetch(`${apiB.url}/v1/batches/${id}/archive`);
  assert.equal(zip.status, 200);
  const files = await unzip(Buffer.from(await zip.arrayBuffer()));
  assert.equal(files.size, 21);
  for (let i = 0; i < 20; i++) {
    const png = PNG.sync.read(files.get(`row-${i}.png`)!);
    const p = (18 * png.width + 32) * 4;
    const got = [png.data[p]!, png.data[p + 1]!, png.data[p + 2]!];
    assert.ok(
      got.every((v, k) => Math.abs(v - colour(i)[k]!) <= 2),
      `row ${i}: ${got}`,
    );
  }
  assert.equal(JSON.parse(files.get('manifest.json')!.toString()).rows.length, 20);
});
