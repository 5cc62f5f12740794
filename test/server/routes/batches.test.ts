// Batches over HTTP, embedded mode, with real Chromium and ffmpeg (one service for the file, 64 px outputs): a
// 20-row frame batch whose rows differ in a colour argument (each row's PNG is its colour, the archive read with a ZIP
// library holds the 20 files and the manifest), a bad row and a batch one past BATCH_MAX_ROWS make no job, a 10-row
// video batch cancelled mid-way, the events stream ends with `end`, an idempotent POST, keys as tenants, and
// fairness: another key's single frame POSTed behind a 200-row batch ends before the batch's 10th row.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import yauzl from 'yauzl';
import { fullRenderer, startApp, type TestApp } from '../../helpers/app.js';
import { waitBatch, waitJob } from '../../helpers/job-client.js';
import { until } from '../../helpers/until.js';

const MAX_ROWS = 200;
let t: TestApp;
let base: string;
before(async () => {
  t = await startApp({
    renderer: fullRenderer(),
    ownsRenderer: true,
    config: { apiKeys: 'key-a, key-b', batchMaxRows: MAX_ROWS },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t?.close());

/** A full-frame rectangle of `fill`: every pixel of the frame is the row's colour. */
const CARD =
  'runner "0.0.3";\nuse std.shapes.*;\nscene card(fill: Color = #808080) -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: fill)]\n}\n';
const SMALL = { width: 64, height: 36 };
const A = { authorization: 'Bearer key-a', 'content-type': 'application/json' };
const B = { authorization: 'Bearer key-b', 'content-type': 'application/json' };

const hex = (n: number) => n.toString(16).padStart(2, '0');
/** Row i's colour: 20 distinct, far apart. */
const colour = (i: number): [number, number, number] => [(i * 53) % 256, (i * 97 + 40) % 256, 255 - ((i * 31) % 256)];
const css = ([r, g, b]: [number, number, number]) => `#${hex(r)}${hex(g)}${hex(b)}`;

function postBatch(body: unknown, headers: Record<string, string> = A) {
  return t.app.inject({ method: 'POST', url: '/v1/batches', headers, payload: JSON.stringify(body) });
}

async function accepted(): Promise<number> {
  const text = (await t.app.inject({ url: '/metrics' })).body;
  return [...text.matchAll(/^cmrender_jobs_accepted_total(?:\{[^}]*\})? (\d+)/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
}

function centre(png: PNG): [number, number, number] {
  const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

/** Every entry of a ZIP, read with yauzl. */
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

const near = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]!) <= 2);

let colourBatch = '';
test('a 20-row frame batch: every row ready, each PNG its row colour, the archive holds 20 files and the manifest', async () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ args: { fill: css(colour(i)) }, name: `card-${i}` }));
  const r = await postBatch({ kind: 'frame', source: CARD, params: SMALL, rows });
  assert.equal(r.statusCode, 202, r.body);
  const created = r.json();
  assert.equal(created.count, 20);
  assert.equal(created.status, 'pending');
  assert.equal(r.headers.location, `/v1/batches/${created.batch_id}`);
  assert.deepEqual(
    created.jobs.map((j: { name: string }) => j.name),
    rows.map((x) => x.name),
  );
  colourBatch = created.batch_id;
  const early = await t.app.inject({ url: `/v1/batches/${created.batch_id}/archive` });
  if (early.statusCode !== 200) assert.equal(early.json().code, 'batch_pending');
  const view = await waitBatch(t.app, created.batch_id);
  assert.equal(view.status, 'ready', JSON.stringify(view));
  assert.deepEqual(view.counts, { pending: 0, ready: 20, error: 0 });
  assert.equal(view.progress, 1);
  for (const [i, row] of view.rows.entries()) {
    assert.equal(row.job_id, created.jobs[i].job_id);
    const png = PNG.sync.read((await t.app.inject({ url: row.url })).rawPayload);
    assert.ok(near(centre(png), colour(i)), `row ${i}: ${centre(png)} vs ${colour(i)}`);
    // the row is a job like any other: its own view, with its args
    const job = (await t.app.inject({ url: `/v1/jobs/${row.job_id}` })).json();
    assert.deepEqual(job.args, { fill: css(colour(i)) });
  }
  const zip = await t.app.inject({ url: `/v1/batches/${created.batch_id}/archive` });
  assert.equal(zip.statusCode, 200);
  assert.equal(zip.headers['content-type'], 'application/zip');
  const files = await unzip(zip.rawPayload);
  assert.deepEqual([...files.keys()].sort(), [...rows.map((x) => `${x.name}.png`), 'manifest.json'].sort());
  for (let i = 0; i < 20; i++) {
    const png = PNG.sync.read(files.get(`card-${i}.png`)!);
    assert.ok(near(centre(png), colour(i)), `archive row ${i}`);
  }
  const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
  assert.equal(manifest.rows.length, 20);
  assert.deepEqual(manifest.rows[3], {
    name: 'card-3',
    job_id: created.jobs[3].job_id,
    status: 'ready',
    args: { fill: css(colour(3)) },
    file: 'card-3.png',
    url: view.rows[3].url,
  });
});

test('the events stream of an ended batch: a row event per row, then end with the final view', async () => {
  const res = await fetch(`${base}/v1/batches/${colourBatch}/events`);
  assert.equal(res.status, 200);
  const text = await res.text();
  const events = [...text.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map((m) => ({
    event: m[1],
    data: JSON.parse(m[2]!),
  }));
  assert.equal(events.at(-1)!.event, 'end');
  assert.equal(events.at(-1)!.data.status, 'ready');
  assert.equal(events.filter((e) => e.event === 'row').length, 20);
});

test('a batch with one bad row (args or params) and one over BATCH_MAX_ROWS make no job', async () => {
  const before = await accepted();
  const rows = Array.from({ length: 10 }, (_, i) => ({ args: { fill: css(colour(i)) } }));
  rows[7] = { args: { fill: 42 as unknown as string } };
  const bad = await postBatch({ kind: 'frame', source: CARD, params: SMALL, rows });
  assert.equal(bad.statusCode, 400, bad.body);
  assert.equal(bad.json().code, 'invalid_args');
  assert.match(bad.json().error, /rows\[7\]/);
  assert.equal(bad.json().problems[0].path, 'rows[7].args.fill');

  const params = Array.from({ length: 5 }, () => ({}) as Record<string, unknown>);
  params[3] = { params: { width: 999999 } };
  const badParams = await postBatch({ kind: 'frame', source: CARD, params: SMALL, rows: params });
  assert.equal(badParams.statusCode, 400, badParams.body);
  assert.equal(badParams.json().code, 'invalid_params');
  assert.match(badParams.json().error, /rows\[3\]/);

  const dup = await postBatch({ kind: 'frame', source: CARD, params: SMALL, rows: [{ name: 'x' }, { name: 'x' }] });
  assert.equal(dup.statusCode, 400, dup.body);
  assert.equal(dup.json().code, 'invalid_rows');

  const over = await postBatch({
    kind: 'frame',
    source: CARD,
    params: SMALL,
    rows: Array.from({ length: MAX_ROWS + 1 }, () => ({})),
  });
  assert.equal(over.statusCode, 400, over.body);
  assert.equal(over.json().code, 'too_many_rows');
  assert.equal(await accepted(), before, 'no job was made');
});

test('an Idempotency-Key answers the same batch; another key reaches none of it (404)', async () => {
  const body = { kind: 'frame', source: CARD, params: SMALL, rows: [{ args: { fill: '#ff0000' } }, {}] };
  const headers = { ...A, 'idempotency-key': 'batch-idem-1' };
  const first = await postBatch(body, headers);
  const again = await postBatch(body, headers);
  assert.equal(first.statusCode, 202, first.body);
  assert.equal(again.statusCode, 202, again.body);
  assert.equal(again.json().batch_id, first.json().batch_id);
  assert.deepEqual(again.json().jobs, first.json().jobs);
  assert.deepEqual(
    first.json().jobs.map((j: { name: string }) => j.name),
    ['000', '001'],
  );
  const mismatch = await postBatch({ ...body, rows: [{}] }, headers);
  assert.equal(mismatch.statusCode, 422, mismatch.body);
  const id = first.json().batch_id;
  await waitBatch(t.app, id);
  for (const url of [`/v1/batches/${id}`, `/v1/batches/${id}/archive`, `/v1/batches/${id}/events`]) {
    const other = await t.app.inject({ url, headers: { authorization: 'Bearer key-b' } });
    assert.equal(other.statusCode, 404, url);
    const own = await t.app.inject({ url, headers: { authorization: 'Bearer key-a' } });
    assert.equal(own.statusCode, 200, url);
  }
  const del = await t.app.inject({
    method: 'DELETE',
    url: `/v1/batches/${id}`,
    headers: { authorization: 'Bearer key-b' },
  });
  assert.equal(del.statusCode, 404);
  const unknown = await t.app.inject({ url: '/v1/batches/00000000-0000-4000-8000-000000000000' });
  assert.equal(unknown.statusCode, 404);
});

test('a 10-row video batch cancelled mid-way: rows ended keep their outputs, the rest end cancelled', async () => {
  const rows = Array.from({ length: 10 }, (_, i) => ({ args: { fill: css(colour(i)) } }));
  const r = await postBatch({ kind: 'video', source: CARD, params: { ...SMALL, fps: 10, duration: 1 }, rows });
  assert.equal(r.statusCode, 202, r.body);
  const id = r.json().batch_id;
  let view: any;
  await until(
    () => `a first row of ${id} to be ready`,
    async () => {
      view = (await t.app.inject({ url: `/v1/batches/${id}` })).json();
      return view.counts.ready + view.counts.error >= 1;
    },
    120_000,
  );
  const del = await t.app.inject({
    method: 'DELETE',
    url: `/v1/batches/${id}`,
    headers: { authorization: A.authorization },
  });
  assert.equal(del.statusCode, 200, del.body);
  const after = await waitBatch(t.app, id);
  assert.equal(after.status, 'error');
  const ready = after.rows.filter((x: any) => x.status === 'ready');
  const cancelled = after.rows.filter((x: any) => x.code === 'cancelled');
  assert.ok(ready.length >= 1, JSON.stringify(after.counts));
  assert.ok(cancelled.length >= 1, JSON.stringify(after.counts));
  assert.equal(ready.length + cancelled.length, 10);
  for (const row of ready) assert.equal((await t.app.inject({ url: row.url })).statusCode, 200);
  const files = await unzip((await t.app.inject({ url: `/v1/batches/${id}/archive` })).rawPayload);
  assert.equal(files.size, ready.length + 1);
  const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
  assert.equal(manifest.rows.filter((x: any) => x.code === 'cancelled').length, cancelled.length);
});

test("another key's single frame POSTed behind a 200-row batch ends before the batch's 10th row", async () => {
  const rows = Array.from({ length: MAX_ROWS }, (_, i) => ({ args: { fill: css(colour(i % 20)) } }));
  const r = await postBatch({ kind: 'frame', source: CARD, params: SMALL, rows });
  assert.equal(r.statusCode, 202, r.body);
  const id = r.json().batch_id;
  const single = await t.app.inject({
    method: 'POST',
    url: '/v1/frame',
    headers: B,
    payload: JSON.stringify({ source: CARD, params: SMALL, args: { fill: '#00ff00' } }),
  });
  assert.equal(single.statusCode, 202, single.body);
  const done = (await waitJob(t.app, single.json().job_id)).json();
  assert.equal(done.status, 'ready');
  await t.app.inject({ method: 'DELETE', url: `/v1/batches/${id}`, headers: { authorization: A.authorization } });
  const view = await waitBatch(t.app, id);
  const ends: number[] = [];
  for (const row of view.rows.filter((x: any) => x.status === 'ready'))
    ends.push((await t.app.inject({ url: `/v1/jobs/${row.job_id}` })).json().completed_at);
  // rows that ended while the frame was in line: those that ended before it was posted say how fast the machine
  // is, not whether the line is fair
  const before = ends.filter((at) => at >= done.created_at && at < done.completed_at).length;
  assert.ok(before < 10, `${before} rows of the batch ended while the other key's frame waited`);
});
