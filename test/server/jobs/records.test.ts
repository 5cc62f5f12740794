// Memory and the journal are bounded by configuration, not by traffic: an ended record keeps no source (its SHA-256
// instead), and past MAX_ENDED_JOBS the record of the job that ended first goes. Before, every record kept its whole
// source for 24 hours: 1,700 failing 64 KB jobs in 38 s took the process from 188 to ~800 MB and the journal to 750 MB.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, FakeRenderer, JobFailure, type TestApp } from '../../helpers/app.js';
import { waitJob } from '../../helpers/job-client.js';
import { until } from '../../helpers/until.js';
import { replay } from '../../../src/server/jobs/store/journal.js';

const dirs: string[] = [];
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A 64 KiB source, different per job (each one fails in the fake renderer at once, as a compile error does). */
const bigSource = (i: number) => `runner "0.0.3";\n// ${String(i).padStart(6, '0')} ${'x'.repeat(64 * 1024 - 40)}\n`;

test('ended records keep no source, and past MAX_ENDED_JOBS the oldest-ended go: memory and journal stay bounded', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-records-'));
  dirs.push(dataDir);
  const fake = new FakeRenderer();
  fake.behaviour = () => {
    throw new JobFailure('compile failed', 'PAR001');
  };
  const cap = 40;
  // a journal, not a memory store: the bound is on disk too
  const t = await startApp({ renderer: fake, config: { dataDir, maxEndedJobs: cap } });
  apps.push(t);
  const ids: string[] = [];
  for (let i = 0; i < 3 * cap; i++) {
    const r = await t.app.inject({ method: 'POST', url: '/v1/frame', payload: { source: bigSource(i) } });
    assert.equal(r.statusCode, 202, r.body);
    ids.push(r.json().job_id);
    assert.equal((await waitJob(t.app, ids.at(-1)!)).json().status, 'error');
  }
  // a job's end evicts the oldest-ended record just after it is written: wait (bounded) for the last eviction
  await until(
    'the last eviction',
    async () => (await t.app.inject({ url: `/v1/jobs/${ids[2 * cap - 1]}` })).statusCode === 404,
    5_000,
  );
  // the last `cap` to end are kept, the earlier ones are gone (404), exactly at the edge
  const kept = await Promise.all(ids.map(async (id) => (await t.app.inject({ url: `/v1/jobs/${id}` })).statusCode));
  assert.deepEqual(
    kept.map((s, i) => [i, s]).filter(([, s]) => s !== 500),
    ids.slice(0, 2 * cap).map((_, i) => [i, 404]),
  );
  const journal = join(dataDir, 'jobs.journal');
  const live = replay(readFileSync(journal)).records;
  assert.equal(live.size, cap);
  const last = live.get(ids.at(-1)!)!;
  assert.equal(last.source, '');
  assert.equal(
    last.source_sha256,
    createHash('sha256')
      .update(bigSource(3 * cap - 1))
      .digest('hex'),
  );
  // what a kept record costs: its journal line, far from the 64 KiB source it came with
  for (const rec of live.values()) assert.ok(JSON.stringify(rec).length < 2048, JSON.stringify(rec).slice(0, 200));
  // the journal compacts: 120 sources of 64 KiB went through it (7.5 MiB), it holds 40 small records now
  assert.ok(statSync(journal).size < 2 * 1024 * 1024, `journal ${statSync(journal).size} bytes`);
});

test('a record at the cap is kept and survives a restart; one past it is evicted at the next start', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-records-'));
  dirs.push(dataDir);
  const fake = new FakeRenderer();
  const a = await startApp({ renderer: fake, config: { dataDir, maxEndedJobs: 3 } });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(
      (await a.app.inject({ method: 'POST', url: '/v1/frame', payload: { source: bigSource(i) } })).json().job_id,
    );
    assert.equal((await waitJob(a.app, ids.at(-1)!)).json().status, 'ready');
  }
  await a.close();
  const b = await startApp({ renderer: new FakeRenderer(), config: { dataDir, maxEndedJobs: 2 } });
  apps.push(b);
  const codes = await Promise.all(ids.map(async (id) => (await b.app.inject({ url: `/v1/jobs/${id}` })).statusCode));
  assert.deepEqual(codes, [404, 200, 200]);
});
