// The append-only job journal: round trips, torn and corrupt lines, compaction, group commit, and a SIGKILLed writer
// whose every acknowledged record is found after a reopen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, appendFileSync, writeFileSync, statSync, existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../../../src/paths.js';
import { JournalJobStore, crc32, encodeLine, decodeLine, replay } from '../../../../src/server/jobs/store/journal.js';
import { storedForm, type JobRecord } from '../../../../src/server/jobs/store/port.js';
import { until } from '../../../helpers/until.js';

// by the repository, not this module's own place: the tests may run transpiled (scripts/lib/compile-tests.ts)
const here = join(repoRoot, 'test', 'server', 'jobs', 'store');
const tmp = () => mkdtempSync(join(tmpdir(), 'cmrender-journal-'));

function rec(i: number, extra: Partial<JobRecord> = {}): JobRecord {
  return {
    job_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    kind: 'frame',
    status: 'pending',
    created_at: 1_000 + i,
    source: `scene ${i}`,
    params: { width: 64 },
    assets: {},
    ...extra,
  };
}

test('crc32 matches the standard check value', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  assert.equal(crc32(Buffer.alloc(0)), 0);
});

test('a line decodes to its entry; any flipped byte, cut or bad length is refused', () => {
  const line = encodeLine({ op: 'put', rec: rec(1) });
  assert.equal(line[line.length - 1], 10);
  const body = line.subarray(0, line.length - 1);
  assert.deepEqual(decodeLine(body), { op: 'put', rec: rec(1) });
  for (let i = 0; i < body.length; i++) {
    const bad = Buffer.from(body);
    bad[i] ^= 0x04;
    assert.equal(decodeLine(bad), null, `flipped byte ${i} accepted`);
  }
  for (let n = 0; n < body.length; n++) assert.equal(decodeLine(body.subarray(0, n)), null, `cut at ${n} accepted`);
  assert.equal(decodeLine(Buffer.from('00000000\t2\t{}')), null);
  // well-formed but not an entry
  const json = Buffer.from('{"op":"put"}');
  assert.equal(decodeLine(Buffer.from(`${crc32(json).toString(16).padStart(8, '0')}\t${json.length}\t${json}`)), null);
});

test('replay applies puts and deletes in order and drops a torn tail', () => {
  const bytes = Buffer.concat([
    encodeLine({ op: 'put', rec: rec(1) }),
    encodeLine({ op: 'put', rec: rec(2) }),
    encodeLine({ op: 'put', rec: rec(1, { status: 'ready' }) }),
    encodeLine({ op: 'del', id: rec(2).job_id }),
    encodeLine({ op: 'put', rec: rec(3) }).subarray(0, 40),
  ]);
  const r = replay(bytes);
  assert.equal(r.lines, 4);
  assert.equal(r.dropped, 1);
  assert.deepEqual([...r.records.keys()], [rec(1).job_id]);
  assert.equal(r.records.get(rec(1).job_id)!.status, 'ready');
});

test('records survive a reopen; reads are copies the caller cannot corrupt', async () => {
  const dir = tmp();
  try {
    const a = await JournalJobStore.open({ dir });
    await a.put(rec(1));
    await a.put(rec(2));
    await a.put(rec(1, { status: 'error', message: 'boom', code: null }));
    await a.delete(rec(2).job_id);
    await a.put(rec(3));
    const got = (await a.get(rec(3).job_id))!;
    got.status = 'ready';
    assert.equal((await a.get(rec(3).job_id))!.status, 'pending');
    await a.close();
    await assert.rejects(a.put(rec(4)), /closed/);

    const b = await JournalJobStore.open({ dir });
    const ids = (await b.list()).map((r) => r.job_id).sort();
    assert.deepEqual(ids, [rec(1).job_id, rec(3).job_id]);
    // an ended record comes back as it is stored: without its source, with the source's SHA-256
    assert.deepEqual(await b.get(rec(1).job_id), storedForm(rec(1, { status: 'error', message: 'boom', code: null })));
    assert.equal((await b.get(rec(1).job_id))!.source, '');
    assert.equal(await b.get(rec(2).job_id), undefined);
    assert.equal(b.stats().dropped, 0);
    await b.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a torn last line (a write cut by SIGKILL) is dropped at open, the rest kept, and writing goes on', async () => {
  const dir = tmp();
  try {
    const a = await JournalJobStore.open({ dir });
    for (let i = 1; i <= 5; i++) await a.put(rec(i));
    await a.close();
    const path = join(dir, 'jobs.journal');
    const torn = encodeLine({ op: 'put', rec: rec(6) });
    appendFileSync(path, torn.subarray(0, torn.length - 7));
    const b = await JournalJobStore.open({ dir });
    assert.equal(b.stats().dropped, 1);
    assert.equal((await b.list()).length, 5);
    assert.equal(await b.get(rec(6).job_id), undefined);
    // the open compacted the journal: the torn bytes are gone, every line is whole
    const text = readFileSync(path);
    assert.equal(replay(text).dropped, 0);
    await b.put(rec(7));
    await b.close();
    const c = await JournalJobStore.open({ dir });
    assert.equal(c.stats().dropped, 0);
    assert.equal((await c.list()).length, 6);
    await c.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a corrupt line in the middle is skipped; its neighbours are kept', async () => {
  const dir = tmp();
  try {
    const lines = [1, 2, 3].map((i) => encodeLine({ op: 'put', rec: rec(i) }));
    lines[1][20] ^= 1;
    writeFileSync(join(dir, 'jobs.journal'), Buffer.concat(lines));
    const s = await JournalJobStore.open({ dir });
    assert.equal(s.stats().dropped, 1);
    assert.deepEqual((await s.list()).map((r) => r.created_at).sort(), [1001, 1003]);
    await s.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the journal is compacted when it grows past N times the live size, and replays the same', async () => {
  const dir = tmp();
  try {
    const s = await JournalJobStore.open({ dir, compactRatio: 3, compactMinBytes: 16 * 1024 });
    const before = s.stats().compactions;
    for (let round = 0; round < 40; round++) for (let i = 0; i < 10; i++) await s.put(rec(i, { progress: round / 40 }));
    const st = s.stats();
    assert.ok(st.compactions > before, `no compaction: ${JSON.stringify(st)}`);
    assert.ok(st.journalBytes <= 3 * st.liveBytes + 16 * 1024 + 4096, JSON.stringify(st));
    assert.equal(statSync(join(dir, 'jobs.journal')).size, st.journalBytes);
    assert.ok(!existsSync(join(dir, 'jobs.journal.tmp')));
    await s.close();
    const t = await JournalJobStore.open({ dir });
    const all = await t.list();
    assert.equal(all.length, 10);
    for (const r of all) assert.equal(r.progress, 39 / 40);
    await t.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('puts of the same tick share one write and one fsync (group commit)', async () => {
  const dir = tmp();
  try {
    const s = await JournalJobStore.open({ dir });
    const b0 = s.stats().batches;
    await Promise.all(Array.from({ length: 200 }, (_, i) => s.put(rec(i))));
    assert.ok(s.stats().batches - b0 <= 2, `batches: ${s.stats().batches - b0}`);
    await s.close();
    const t = await JournalJobStore.open({ dir });
    assert.equal((await t.list()).length, 200);
    await t.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test(
  'SIGKILL during a write storm (with compactions): every acknowledged put is found after reopening',
  { timeout: 60_000 },
  async () => {
    for (const delay of [150, 400, 900]) {
      const dir = tmp();
      try {
        const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'fixtures', 'journal-writer.ts'), dir], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
        child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
        // wait for the first acknowledgements, then kill at a point that moves with `delay`
        await until(
          () => `the writer's first acknowledged put: ${err}`,
          () => out.includes('\n'),
          10_000,
        );
        // the kill point (not a wait for a fact): a moment that moves with `delay`, at any point of the storm
        await new Promise((r) => setTimeout(r, delay));
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
        const acked = out.split('\n').slice(0, -1);
        assert.ok(acked.length > 20, `only ${acked.length} acknowledgements`);
        const s = await JournalJobStore.open({ dir });
        for (const a of acked) {
          const [id, status] = a.split(':');
          const r = await s.get(id);
          assert.ok(r, `acknowledged ${id} is lost (delay ${delay})`);
          if (status) assert.equal(r.status, 'ready', `acknowledged update of ${id} is lost`);
        }
        await s.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  },
);

test('a failed write is reported to its caller, leaves no new record in the index, and the journal recovers by itself', async () => {
  const dir = tmp();
  try {
    const s = await JournalJobStore.open({ dir });
    await s.put(rec(1));
    // make the next write fail: close the file under the store
    await (s as unknown as { fh: { close(): Promise<void> } }).fh.close();
    await assert.rejects(s.put(rec(2)));
    assert.equal(await s.get(rec(2).job_id), undefined, 'a refused new record is not in the index');
    // the next change rewrites the journal from memory (compaction) and goes through: no restart needed
    assert.equal(await s.writable(), true);
    await s.put(rec(3));
    assert.ok(await s.get(rec(1).job_id), 'an acknowledged record is still there');
    await s.close();
    const t = await JournalJobStore.open({ dir });
    assert.deepEqual(
      (await t.list()).map((r) => r.job_id),
      [rec(1).job_id, rec(3).job_id],
    );
    await t.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
