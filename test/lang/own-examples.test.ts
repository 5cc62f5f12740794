// Our own examples (examples/*.cm): every one compiles with no diagnostics and evaluates cleanly at the start and
// halfway through its duration, to a tree the viewer accepts, and is in the formatter's layout, pinned to the newest
// runner (as the README's sources are). They need nothing outside this repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { compile, valueSchema, imagePaths, newestRunner } from '../../src/lang/index.js';
import { formatSource } from '../../src/lang/format.js';
import { ownExamplesDir } from '../helpers/shared.js';

const files = readdirSync(ownExamplesDir)
  .filter((f) => f.endsWith('.cm'))
  .sort();
const load = (f: string) => compile(readFileSync(path.join(ownExamplesDir, f), 'utf8'));

test('examples/ holds a dozen scenes, each listed in examples/README.md', () => {
  assert.ok(files.length >= 12, `found ${files.length}`);
  const readme = readFileSync(path.join(ownExamplesDir, 'README.md'), 'utf8');
  for (const f of files) assert.ok(readme.includes(`(${f})`), `${f} is not linked from examples/README.md`);
});

for (const f of files) {
  test(`examples/${f} compiles clean and evaluates at 0 and at half its duration`, () => {
    const c = load(f);
    assert.deepEqual(c.diagnostics, []);
    assert.ok(c.ok && c.program);
    const half = c.program.durationSeconds / 2;
    for (const t of [0, half]) {
      const { value, diagnostics } = c.program.sceneAt(t);
      assert.deepEqual(diagnostics, [], `t=${t}`);
      assert.deepEqual(
        valueSchema.parse(JSON.parse(JSON.stringify(value))),
        value,
        `t=${t}: the viewer's input schema`,
      );
      assert.equal((value as { name?: string }).name, 'compose', `t=${t}: a composed frame`);
      // every time signal resolved to a value
      assert.doesNotMatch(JSON.stringify(value), /"name":"(animate|wave|bounce|on_event|field_of)"/, `t=${t}`);
    }
  });
}

test('animated examples change between 0 and half their duration; the still ones do not', () => {
  const still = new Set(['hello.cm', 'shapes.cm', 'colours.cm', 'text.cm']);
  for (const f of files) {
    const p = load(f).program!;
    const a = JSON.stringify(p.sceneAt(0).value);
    const b = JSON.stringify(p.sceneAt(p.durationSeconds / 2).value);
    if (still.has(f)) assert.equal(a, b, f);
    else assert.notEqual(a, b, f);
  }
});

test('story.cm declares 10 s; image.cm uses only the image shipped beside it; every image in img/ is described', () => {
  assert.equal(load('story.cm').program!.durationSeconds, 10);
  assert.deepEqual([...new Set(imagePaths(load('image.cm').program!.sceneAt(0).value))], ['/img/sunset.png']);
  const shipped = readdirSync(path.join(ownExamplesDir, 'img'));
  assert.ok(shipped.includes('sunset.png'));
  // img/ also holds the README's line drawing (sketch.png), which no scene draws: each file says what it is for
  const readme = readFileSync(path.join(ownExamplesDir, 'README.md'), 'utf8');
  for (const f of shipped) assert.ok(readme.includes(`(img/${f})`), `img/${f} is not linked from examples/README.md`);
});

test("every example is in the formatter's layout (`cmrender fmt --check` passes on each)", () => {
  const unformatted = files.filter((f) => {
    const source = readFileSync(path.join(ownExamplesDir, f), 'utf8');
    const r = formatSource(source);
    return !r.ok || r.text !== source;
  });
  assert.deepEqual(unformatted, [], 'run `cmrender fmt --write examples/FILE.cm`');
});

test('every example and every source in the README pins one runner: the newest, the one a new source should use', () => {
  const newest = newestRunner();
  for (const f of files) {
    const pin = /^runner "([^"]+)";/m.exec(readFileSync(path.join(ownExamplesDir, f), 'utf8'))?.[1];
    assert.equal(pin, newest, f);
  }
  const readme = readFileSync(path.join(ownExamplesDir, '..', 'README.md'), 'utf8');
  const pins = [...readme.matchAll(/runner \\?"(\d+\.\d+\.\d+)\\?"/g)].map((m) => m[1]);
  assert.ok(pins.length >= 5, `${pins.length} pinned sources in the README`);
  assert.deepEqual([...new Set(pins)], [newest]);
});
