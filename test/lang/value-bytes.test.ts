// A frame's value has a byte budget (EVL013, MAX_VALUE_BYTES): the characters of its JSON, each use of a shared
// subtree or string counted, measured as the tree is walked. The measure is JSON.stringify's length (so the budget
// means what it says), and the budget holds at its edge: a value of exactly MAX_VALUE_BYTES renders, one character
// more is EVL013, in compile() (what /v1/check reports) and in sceneAt(t) (what a job's frames meet).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compile, MAX_VALUE_BYTES, type Value } from '../../src/lang/index.js';
import { measureValue } from '../../src/lang/limits.js';
import { repoRoot } from '../../src/paths.js';

const UNBOUNDED = { nodes: Infinity, depth: Infinity, bytes: Infinity };

test("the measure is JSON.stringify's length: every example at three times, and strings that need escapes", () => {
  const dir = join(repoRoot, 'examples');
  const names = readdirSync(dir).filter((n) => n.endsWith('.cm'));
  assert.ok(names.length >= 10);
  for (const name of names) {
    const program = compile(readFileSync(join(dir, name), 'utf8')).program!;
    for (const t of [0, 0.7, 2.3]) {
      const v = program.sceneAt(t).value;
      assert.equal(measureValue(v, UNBOUNDED).bytes, JSON.stringify(v).length, `${name} at ${t}`);
    }
  }
  const odd: Value = {
    kind: 'constructed',
    name: 'té"xt',
    fields: [
      { name: '', value: { kind: 'string', raw: '"a\\"b\n\t\u0001\u001f\ud800 \udc00 \ud83d\ude00 é"' } },
      { name: 'n', value: { kind: 'number', value: -1.5e-7, unit: 'px' } },
      { name: 'z', value: { kind: 'array', elems: [{ kind: 'nil' }, { kind: 'bool', value: false }] } },
      { name: 'c', value: { kind: 'color', form: 'hex', digits: 'ff00aa' } },
      {
        name: 'o',
        value: {
          kind: 'color',
          form: 'oklch',
          l: { kind: 'number', value: 0.5, unit: null },
          c: { kind: 'number', value: 0.1, unit: null },
          h: { kind: 'number', value: 120, unit: 'deg' },
        },
      },
      { name: 'f', value: { kind: 'lambda', params: ['a', 'b'] } },
      { name: 'r', value: { kind: 'record', fields: [] } },
    ],
  };
  assert.equal(measureValue(odd, UNBOUNDED).bytes, JSON.stringify(odd).length);
});

/**
 * A scene whose value is `[a9, tail]`: a string of 32,700 characters shared through 9 levels of doubling arrays
 * (512 uses, about 16.76 million characters of JSON), then a string of `tail` characters.
 */
function scene(tail: number): string {
  let src = `let s = "${'x'.repeat(32_700)}";\nlet t = "${'y'.repeat(tail)}";\nscene big() -> Frame {\n  let a1 = [s, s];\n`;
  for (let i = 2; i <= 9; i++) src += `  let a${i} = [a${i - 1}, a${i - 1}];\n`;
  return src + '  [a9, t]\n}\n';
}

test('a value of exactly MAX_VALUE_BYTES characters of JSON renders; one character more is EVL013', () => {
  const base = compile(scene(0));
  assert.equal(base.ok, true, JSON.stringify(base.diagnostics));
  const under = JSON.stringify(base.program!.sceneAt(0).value).length;
  const tail = MAX_VALUE_BYTES - under; // each character of t is one of JSON
  assert.ok(tail > 0 && tail < 30_000, `tail ${tail}`);

  const at = compile(scene(tail));
  assert.equal(at.ok, true, JSON.stringify(at.diagnostics));
  const r = at.program!.sceneAt(0);
  assert.deepEqual(r.diagnostics, []);
  assert.equal(JSON.stringify(r.value).length, MAX_VALUE_BYTES);

  const past = compile(scene(tail + 1));
  assert.equal(past.ok, false);
  assert.deepEqual(
    past.diagnostics.map((d) => d.code),
    ['EVL013'],
  );
  assert.match(past.diagnostics[0]!.message, /more than 16777216 characters of JSON/);
  // a frame's evaluation meets the same limit, and gives no value to serialise
  const frame = past.program!.sceneAt(1);
  assert.deepEqual(
    frame.diagnostics.map((d) => d.code),
    ['EVL013'],
  );
  assert.deepEqual(frame.value, { kind: 'nil' });
});

test('the bomb of issue 32 (a 50,000-character string through 12 doublings, 205 MB of JSON) is EVL013, quickly', () => {
  let src = `let s = "${'x'.repeat(50_000)}";\nscene bomb() -> Frame {\n  let a1 = [s, s];\n`;
  for (let i = 2; i <= 12; i++) src += `  let a${i} = [a${i - 1}, a${i - 1}];\n`;
  src += '  a12\n}\n';
  assert.ok(src.length < 65_536);
  const c = compile(src);
  assert.deepEqual(
    c.diagnostics.map((d) => d.code),
    ['EVL013'],
  );
  // the measure stops at the budget: it walks 16 MiB of the 205 MB, never serialising any of it
  const m = measureValue(
    (() => {
      const str: Value = { kind: 'string', raw: '"' + 'x'.repeat(50_000) + '"' };
      let v: Value = { kind: 'array', elems: [str, str] };
      for (let i = 2; i <= 12; i++) v = { kind: 'array', elems: [v, v] };
      return v;
    })(),
    { nodes: 100_000, depth: 200, bytes: MAX_VALUE_BYTES },
  );
  assert.ok(m.bytes > MAX_VALUE_BYTES && m.bytes < MAX_VALUE_BYTES + 60_000, String(m.bytes));
});
