// The recovery rule (pure): what a restart does with stored records.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRecovery, INTERRUPTED_MESSAGE, type RecoverableRecord } from '../../../src/server/durability/recovery.js';

const NOW = 5_000_000;
function r(id: string, created_at: number, extra: Partial<RecoverableRecord> = {}): RecoverableRecord {
  return { job_id: id, kind: 'frame', status: 'pending', created_at, source: 's', params: {}, assets: {}, ...extra };
}

test('pending jobs that never started are queued again in created_at order', () => {
  const p = planRecovery([r('c', 30), r('a', 10), r('b', 20)], NOW);
  assert.deepEqual(p.requeue, ['a', 'b', 'c']);
  assert.deepEqual(p.updates, []);
  assert.deepEqual(p.failed, []);
});

test('equal created_at: a stable order by job_id', () => {
  assert.deepEqual(planRecovery([r('b', 1), r('a', 1), r('c', 1)], NOW).requeue, ['a', 'b', 'c']);
});

test('the job that was rendering is queued again once, in its place, with the interruption counted', () => {
  const p = planRecovery(
    [r('later', 20), r('was-rendering', 10, { started_at: 15, progress: 0.4 }), r('last', 30)],
    NOW,
  );
  assert.deepEqual(p.requeue, ['was-rendering', 'later', 'last']);
  assert.equal(p.updates.length, 1);
  const u = p.updates[0];
  assert.equal(u.job_id, 'was-rendering');
  assert.equal(u.status, 'pending');
  assert.equal(u.interrupted, 1);
  assert.equal(u.started_at, undefined);
  assert.equal(u.progress, undefined);
  assert.equal(u.created_at, 10);
});

test('interrupted a second time: it ends in error, code interrupted, completed now', () => {
  const p = planRecovery([r('x', 10, { started_at: 12, interrupted: 1 }), r('y', 20)], NOW);
  assert.deepEqual(p.requeue, ['y']);
  assert.deepEqual(p.failed, ['x']);
  const u = p.updates[0];
  assert.equal(u.status, 'error');
  assert.equal(u.message, INTERRUPTED_MESSAGE);
  assert.match(u.message!, /interrupted/);
  assert.equal(u.code, 'interrupted');
  assert.equal(u.completed_at, NOW);
});

test('a requeued job that was waiting again (never restarted) is simply queued again, counter kept', () => {
  const p = planRecovery([r('x', 10, { interrupted: 1 })], NOW);
  assert.deepEqual(p.requeue, ['x']);
  assert.deepEqual(p.updates, []);
});

test('ready and error records are left alone; inputs are not mutated', () => {
  const ready = r('ok', 1, { status: 'ready', started_at: 2, completed_at: 3 });
  const err = r('bad', 1, { status: 'error', started_at: 2, completed_at: 3, message: 'm', code: null });
  const run = r('run', 5, { started_at: 6 });
  const input = [ready, err, run];
  const snapshot = structuredClone(input);
  const p = planRecovery(input, NOW);
  assert.deepEqual(p.requeue, ['run']);
  assert.deepEqual(
    p.updates.map((u) => u.job_id),
    ['run'],
  );
  assert.deepEqual(input, snapshot);
});

test('every pending record is accounted for: requeued or failed, never dropped', () => {
  const recs: RecoverableRecord[] = [];
  for (let i = 0; i < 200; i++) {
    const kind = i % 3;
    recs.push(
      r(
        `j${i}`,
        (i * 7919) % 1000,
        kind === 0 ? {} : kind === 1 ? { started_at: 1 } : { started_at: 1, interrupted: 1 },
      ),
    );
  }
  const p = planRecovery(recs, NOW);
  assert.equal(p.requeue.length + p.failed.length, 200);
  assert.equal(new Set([...p.requeue, ...p.failed]).size, 200);
  const created = new Map(recs.map((x) => [x.job_id, x.created_at]));
  for (let i = 1; i < p.requeue.length; i++) assert.ok(created.get(p.requeue[i - 1])! <= created.get(p.requeue[i])!);
});
