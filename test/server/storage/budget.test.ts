// The output disk budget (pure eviction plan) and the admission helpers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planEviction, PROTECT_MS } from '../../../src/server/storage/disk-budget.js';
import { queueFull } from '../../../src/contract/refusals.js';
import { Gate } from '../../../src/server/http/gate.js';

const NOW = 10 * PROTECT_MS;
const H = 60 * 60 * 1000;

test('under budget: nothing goes', () => {
  const p = planEviction([{ name: 'a.png', bytes: 10, mtimeMs: 0 }], [], 10, NOW);
  assert.deepEqual(p, { evict: [], jobs: [], total: 10, after: 10 });
});

test('over budget: oldest unprotected outputs go first, just enough of them', () => {
  const files = [
    { name: 'new.png', bytes: 100, mtimeMs: NOW - H },
    { name: 'old.png', bytes: 100, mtimeMs: NOW - 30 * H },
    { name: 'older.png', bytes: 100, mtimeMs: NOW - 40 * H },
    { name: 'stray.mp4.tmp', bytes: 100, mtimeMs: NOW - 50 * H },
  ];
  const refs = [
    { filename: 'new.png', job_id: 'n', at: NOW - H },
    { filename: 'old.png', job_id: 'o', at: NOW - 30 * H },
    { filename: 'older.png', job_id: 'p', at: NOW - 40 * H },
  ];
  const p = planEviction(files, refs, 250, NOW);
  assert.deepEqual(p.evict, ['stray.mp4.tmp', 'older.png']);
  assert.deepEqual(p.jobs, ['p']);
  assert.equal(p.after, 200);
});

test('never an output of a job younger than 24 h, nor the file of a job rendering now, even if over budget', () => {
  const files = [
    { name: 'young.png', bytes: 500, mtimeMs: 0 },
    { name: 'edge.png', bytes: 500, mtimeMs: 0 },
    { name: 'r.mp4.tmp', bytes: 500, mtimeMs: 0 },
  ];
  const refs = [
    { filename: 'young.png', job_id: 'y', at: NOW - PROTECT_MS + 1 },
    { filename: 'edge.png', job_id: 'e', at: NOW - PROTECT_MS },
    { filename: 'r.mp4', job_id: 'r', at: 0, rendering: true },
  ];
  const p = planEviction(files, refs, 0, NOW);
  assert.deepEqual(p.evict, ['edge.png']);
  assert.equal(p.after, 1000);
});

test('a gate admits up to its bound and frees on leave', () => {
  const g = new Gate(2);
  assert.ok(g.tryEnter());
  assert.ok(g.tryEnter());
  assert.ok(!g.tryEnter());
  g.leave();
  assert.equal(g.inUse, 1);
  assert.ok(g.tryEnter());
  g.leave();
  g.leave();
  g.leave();
  assert.equal(g.inUse, 0);
});

test('queue_full refusal: code, message and a bounded retry hint', () => {
  const r = queueFull(500, 500);
  assert.equal(r.code, 'queue_full');
  assert.match(r.error, /queue is full/);
  assert.ok(r.retryAfterSeconds >= 1 && r.retryAfterSeconds <= 60);
  assert.equal(queueFull(1, 1).retryAfterSeconds, 1);
  assert.equal(queueFull(100000, 100000).retryAfterSeconds, 60);
});

test("eviction: a rendering GIF's frames and palette are its own (never evicted); those of a vanished job are strays", () => {
  const files = [
    { name: 'a.gif.frames.deflate', bytes: 500, mtimeMs: 0 },
    { name: 'a.gif.palette.png', bytes: 1, mtimeMs: 0 },
    { name: 'a.gif.tmp', bytes: 100, mtimeMs: 0 },
    { name: 'gone.gif.frames.deflate', bytes: 300, mtimeMs: 0 },
  ];
  const refs = [{ filename: 'a.gif', job_id: 'a', at: NOW, rendering: true }];
  const p = planEviction(files, refs, 0, NOW);
  assert.deepEqual(p.evict, ['gone.gif.frames.deflate']);
  assert.deepEqual(p.jobs, []);
});
