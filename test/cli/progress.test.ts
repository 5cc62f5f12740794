// The render progress as a user sees it: a bar redrawn in place on a terminal, plain lines in a log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgress } from '../../src/cli/progress.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { chunks, s: { isTTY, write: (c: string) => chunks.push(c) } };
}

test('on a terminal: one line redrawn with the bar, frames done of total and the time left', () => {
  const { chunks, s } = sink(true);
  let t = 0;
  const p = createProgress(s, 'out.gif', () => t);
  p.update(0.1, { done: 3, total: 30 });
  t = 1000;
  p.update(0.5, { done: 15, total: 30 });
  t = 1010; // too soon after the last redraw: skipped
  p.update(0.55, { done: 16, total: 30 });
  t = 2000;
  p.update(1, { done: 30, total: 30 });
  p.end();
  assert.equal(chunks.length, 4);
  assert.ok(chunks.slice(0, 3).every((c) => c.startsWith('\rout.gif [') && !c.includes('\n')));
  // halfway after 1 s for 40 %: another 1.25 s to go
  assert.match(chunks[1]!, /\[#{12}\.{12}\]  50% 15\/30 frames  1\.3 s left/);
  assert.match(chunks[2]!, /100% 30\/30 frames  done/);
  assert.equal(chunks[3], '\r\x1b[K');
});

test('not a terminal: a plain line at the start and at each tenth, no carriage return', () => {
  const { chunks, s } = sink(false);
  const p = createProgress(s, 'out.mp4', () => 0);
  for (let i = 1; i <= 40; i++) p.update(i / 40, { done: i, total: 40 });
  p.end();
  assert.equal(chunks.length, 11, 'the first report, then one line per tenth');
  assert.ok(chunks.every((c) => c.endsWith('\n') && !c.includes('\r')));
  assert.equal(chunks.at(-1), 'out.mp4: 100% (40/40 frames), done\n');
});
