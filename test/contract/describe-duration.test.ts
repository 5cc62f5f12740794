// describeDuration: the words a retention or time limit is said in, from its milliseconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeDuration } from '../../src/contract/describe-duration.js';

test('the largest unit that divides exactly, hours at most, milliseconds otherwise', () => {
  const cases: [number, string][] = [
    [86_400_000, '24 hours'],
    [172_800_000, '48 hours'],
    [3_600_000, '1 hour'],
    [5_400_000, '90 minutes'],
    [900_000, '15 minutes'],
    [60_000, '1 minute'],
    [90_000, '90 seconds'],
    [1_000, '1 second'],
    [1_500, '1500 ms'],
    [1, '1 ms'],
    [0, '0 ms'],
  ];
  for (const [ms, words] of cases) assert.equal(describeDuration(ms), words, String(ms));
});
