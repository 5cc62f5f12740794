import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lex } from '../../src/lang/lexer.js';
import { parseAt } from '../../src/cli/main.js';
import { compile, valueSchema } from '../../src/lang/index.js';
import {
  CANONICAL_SUFFIX,
  NUMBER_TYPES,
  UNIT_SUFFIXES,
  UNIT_TAGS,
  convertUnit,
  suffixDimension,
  toSeconds,
  unitTag,
} from '../../src/lang/units.js';

test('one units table: every suffix lexes, evaluates to its tag and passes the value schema', () => {
  assert.equal(UNIT_SUFFIXES.length, 14);
  for (const suffix of UNIT_SUFFIXES) {
    const [tok] = lex(`2${suffix}`);
    assert.equal(tok!.unit, suffix, suffix);
    const v = compile(`scene s() -> F { 2${suffix} }`).program!.sceneAt(0).value;
    assert.deepEqual(v, { kind: 'number', value: 2, unit: unitTag(suffix) }, suffix);
    assert.ok(valueSchema.safeParse(v).success, suffix);
  }
  assert.equal(unitTag('%'), 'percent');
  assert.equal(unitTag(''), null);
  assert.deepEqual([...UNIT_TAGS].sort(), [
    'bars',
    'beats',
    'bpm',
    'deg',
    'hz',
    'khz',
    'ms',
    'ns',
    'percent',
    'px',
    'rad',
    's',
    'turn',
    'us',
  ]);
});

test('the checker reads dimensions and suggested units from the table', () => {
  for (const [type, dim] of NUMBER_TYPES) {
    const d = compile(`let x: ${type} = 5; scene s() -> F { x }`).diagnostics;
    if (dim === null) assert.deepEqual(d, [], type);
    else
      assert.equal(d[0]!.message, `missing unit: '${type}' requires a ${dim} unit (e.g. '5${CANONICAL_SUFFIX[dim]}')`);
  }
  assert.equal(suffixDimension('khz'), 'Frequency');
  assert.equal(suffixDimension('m'), undefined);
});

test('conversions: within a dimension only; seconds by division', () => {
  assert.equal(convertUnit(1, 's', 'ms'), 1000);
  assert.equal(convertUnit(1, 'turn', 'rad'), 2 * Math.PI);
  assert.equal(convertUnit(180, 'deg', 'rad'), Math.PI);
  assert.equal(convertUnit(1.5, 'khz', 'hz'), 1500);
  assert.equal(convertUnit(1, 's', 'deg'), null);
  assert.equal(convertUnit(1, 'px', null), null);
  assert.equal(toSeconds({ value: 0.3, unit: 'ms' }), 0.3 / 1e3);
  assert.equal(toSeconds({ value: 7, unit: 'ns' }), 7 / 1e9);
  assert.equal(toSeconds({ value: 7, unit: 'px' }), 7, 'a non-time unit reads as seconds');
  assert.equal(toSeconds({ value: 7, unit: null }), 7);
});

test('the CLI reads --at with the language time units', () => {
  assert.equal(parseAt('2'), 2);
  assert.equal(parseAt('1.5s'), 1.5);
  assert.equal(parseAt('500ms'), 0.5);
  assert.equal(parseAt('250us'), 250 / 1e6);
  assert.equal(parseAt('10ns'), 10 / 1e9);
  for (const bad of ['1px', '1%', '1khz', '1S', '1 s', '-1', 'soon']) assert.equal(parseAt(bad), null, bad);
});
