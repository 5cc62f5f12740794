// Language positions (1-based lines, UTF-8 byte columns and lengths) to editor offsets (UTF-16), on text with
// characters of one to four UTF-8 bytes before the span.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Text } from '@codemirror/state';
import { compile } from '../../src/lang/index.js';
import { offsetOf, spanOf } from '../../editor/src/positions.js';

test('a diagnostic after multi-byte characters underlines exactly its name', () => {
  const source = [
    'runner "0.0.3";',
    'use std.shapes.*;',
    'scene s() -> Frame {',
    '  let label = "é ✓ 😀"; let bg = rect(width: 640px, height: 360px, fill: #102030);',
    '  let z = "✓✓😀"; compose [bg, squre]',
    '}',
    '',
  ].join('\n');
  const d = compile(source).diagnostics.find((x) => x.code === 'NAM003');
  assert.ok(d, 'NAM003 reported');
  const doc = Text.of(source.split('\n'));
  const { from, to } = spanOf(doc, d);
  assert.equal(source.slice(from, to), 'squre');
  assert.equal(offsetOf(doc, 1, 1), 0);
  // a column past the end of its line stays on that line
  assert.equal(offsetOf(doc, 2, 999), doc.line(2).to);
});

test('byte columns on a line of two-, three- and four-byte characters', () => {
  const doc = Text.of(['é✓😀x']);
  // é is 2 bytes, ✓ 3, 😀 4 (two UTF-16 units): x starts at byte 9, column 10
  assert.equal(doc.sliceString(offsetOf(doc, 1, 10), offsetOf(doc, 1, 11)), 'x');
  assert.equal(doc.sliceString(offsetOf(doc, 1, 6), offsetOf(doc, 1, 10)), '😀');
  assert.deepEqual(spanOf(doc, { line: 1, column: 3, length: 7 }), { from: 1, to: 4 });
});
