// The library warnings (src/lang/library-warnings.ts, LIB001-LIB006) and the animated-operand warning (ANI001): each
// on a minimal source and gone from the fixed one; never an error, and the warned source evaluates as before; none
// on what cmotion accepts (positional arguments, aliases, names the source binds itself, receivers of unknown type);
// and the warnings every example, corpus scene and shared example gets, listed per file (zero for most).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { compile } from '../../src/lang/index.js';
import { FONT_RANGES, missingGlyphs } from '../../src/lang/font-coverage.js';
import { parseFont } from '../../viewer/src/meshes/font.js';
import { FONT_PACKAGE_FILE } from '../../viewer/src/font-file.js';
import { corpusSkip, examplesDir, ownCorpusDir, ownExamplesDir, repoRoot } from '../helpers/shared.js';

const scene = (layer: string) =>
  `runner "0.0.13";\nscene main() -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: #102030), ${layer}]\n}\n`;
const warnings = (src: string) =>
  compile(src)
    .diagnostics.filter((d) => d.severity === 'warning')
    .map((d) => `${d.code} ${d.message}`);

/** [the layer with the mistake, the layer fixed, the warning it gives] */
const CASES: [string, string, string][] = [
  ['rect(widht: 300px)', 'rect(width: 300px)', "LIB001 'rect' has no argument 'widht'; did you mean 'width'?"],
  [
    'sphere(r: 9px).material(fil: #ff0000)',
    'sphere(r: 9px).material(fill: #ff0000)',
    "LIB001 'material' has no argument 'fil'; did you mean 'fill'?",
  ],
  [
    'rect(width: 9px).rotat(z: 30deg)',
    'rect(width: 9px).rotate(z: 30deg)',
    "LIB002 unknown method 'rotat' for a Layer; did you mean 'rotate'?",
  ],
  [
    'render3d(sphere(r: 9px).materail(fill: #ff0000))',
    'render3d(sphere(r: 9px).material(fill: #ff0000))',
    "LIB002 unknown method 'materail' for a Solid; did you mean 'material'?",
  ],
  [
    'rect(width: 9px).fit(cover)',
    'image("/img/earth_4k.jpg").fit(cover)',
    "LIB002 method 'fit' does not apply to a Layer: it applies to an Image",
  ],
  ['rect(width: 9px).blur(5)', 'rect(width: 9px)', 'LIB003 .blur(...) is drawn by nothing here or in cmotion'],
  ['ellipse(width: 9px)', 'circle(radius: 9px)', 'LIB003 ellipse(...) is drawn by nothing here or in cmotion'],
  [
    'rect(width: 10s)',
    'rect(width: 10px)',
    "LIB004 'width' of 'rect' expects a Length in px, got a number in s (Time)",
  ],
  [
    'circle(radius: 5deg)',
    'circle(radius: 5px)',
    "LIB004 'radius' of 'circle' expects a Length in px, got a number in deg (Angle)",
  ],
  [
    'rect(width: 9px, fill: 12px)',
    'rect(width: 9px, fill: #0c0c0c)',
    "LIB004 'fill' of 'rect' expects a colour (#rrggbb, oklch(...)), got a number",
  ],
  [
    'rect(width: 9px).rotate(z: 30px)',
    'rect(width: 9px).rotate(z: 30deg)',
    "LIB004 'z' of 'rotate' expects an Angle in deg (a plain number is radians), got a number in px (Length)",
  ],
  [
    'render3d(extrude(text.glyph("O\\"Brien"), depth: 9px))',
    'render3d(extrude(text.glyph("O\'Brien"), depth: 9px))',
    'LIB005 this text draws as written: O\\"Brien',
  ],
  [
    'render3d(extrude(text.glyph("""Hi"""), depth: 9px))',
    'render3d(extrude(text.glyph("Hi"), depth: 9px))',
    'LIB005 this text draws as written: ""Hi""',
  ],
  [
    'render3d(extrude(text.glyph("東京 ★"), depth: 9px))',
    'render3d(extrude(text.glyph("Tokyo *"), depth: 9px))',
    'LIB006 the font has no outline for "東", "京", "★"',
  ],
  [
    'rect(width: 9px).translate(y: animate { 0s => 0px, 1s => 100px } - 330px)',
    'rect(width: 9px).translate(y: animate { 0s => -330px, 1s => -230px })',
    "ANI001 operator '-' on an animated value: cmotion's runner refuses this source, cmrender renders it",
  ],
  [
    'rect(width: 9px).translate(x: -wave(amplitude: 10px, period: 2s))',
    'rect(width: 9px).translate(x: wave(amplitude: -10px, period: 2s))',
    "ANI001 operator unary '-' on an animated value: cmotion's runner refuses this source, cmrender renders it",
  ],
];

for (const [wrong, right, expected] of CASES) {
  test(`${expected.slice(0, 6)}: ${wrong} warns, ${right} does not`, () => {
    assert.deepEqual(warnings(scene(wrong)), [expected]);
    assert.deepEqual(compile(scene(right)).diagnostics, []);
    // a warning never refuses the source, and the value is the one it was before the warnings existed
    const c = compile(scene(wrong));
    assert.ok(c.ok && c.program);
    for (const t of [0, 0.5]) assert.deepEqual(c.program.sceneAt(t).diagnostics, [], `at ${t}`);
  });
}

test("the warning's span is the misspelt name, the method's name or the literal", () => {
  const at = (src: string) => {
    const d = compile(src).diagnostics.find((x) => x.severity === 'warning')!;
    return src.split('\n')[d.line - 1]!.slice(d.column - 1, d.column - 1 + d.length);
  };
  assert.equal(at(scene('rect(widht: 300px)')), 'widht');
  assert.equal(at(scene('rect(width: 9px).rotat(z: 1)')), 'rotat');
  assert.equal(at(scene('circle(radius: 5deg)')), '5deg');
  const d = compile(scene('rect(widht: 300px)')).diagnostics[0]!;
  assert.equal(d.expected, 'width');
  assert.equal(d.actual, 'widht');
});

test('no warning on what cmotion reads: positional arguments, aliases, unitless numbers, animated arguments', () => {
  for (const ok of [
    'render3d(sphere(120px), lights: [ambient(0.3, tint: #ffeedd), point(position: vec3(0, 1, 2), intensity: 2)])',
    'render3d(sphere(radius: 120px).scale(2).squash(0.3).pivot(bottom))',
    'render3d(extrude(path([vec2(0, 0), vec2(9, 0), vec2(0, 9)]), depth: 9, bevel: 2px))',
    'render3d(vectorize(image("/img/earth_4k.jpg"), strokeWidth: 4, depth: 9px))',
    'rect(width: 9px, at: vec2(1, 2)).translate(x: 0, y: wave(amplitude: 10px, period: 2s)).rotate(z: 0.5)',
    'rect(width: animate { 0s => 0px, 1s => 90px }, height: 9px, fill: oklch(0.7, 0.1, 200))',
    'render3d(sphere(r: 9px).material(fill: image("/img/earth_4k.jpg").as_texture(projection: equirectangular)))',
    'render3d(extrude(text.glyph("Zoë déjà vu – 10 €", size: 80px), depth: 9px))',
  ])
    assert.deepEqual(compile(scene(ok)).diagnostics, [], ok);
});

test("no warning where the source binds the name itself or the receiver's type is unknown", () => {
  const src = `runner "0.0.13";
let rect = |widht: Length| { circle(radius: widht) };
let spin = |s: Solid| { s.rotat(y: 1) };
scene main() -> Frame {
  compose [rect(widht: 9px), render3d(spin(sphere(r: 9px)))]
}
`;
  assert.deepEqual(warnings(src), []);
  // a let of a library value has the value's type
  const typed = `runner "0.0.13";
let box = rect(width: 9px);
scene main() -> Frame {
  compose [box.rotat(z: 1)]
}
`;
  assert.deepEqual(warnings(typed), ["LIB002 unknown method 'rotat' for a Layer; did you mean 'rotate'?"]);
});

test('the font table is the font file: every code point of its cmap, no other', () => {
  const buf = readFileSync(path.join(repoRoot, 'node_modules', FONT_PACKAGE_FILE));
  const font = parseFont(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer);
  const cmap = Object.keys((font.tables.cmap as { glyphIndexMap: Record<string, number> }).glyphIndexMap)
    .map(Number)
    .sort((a, b) => a - b);
  const table = FONT_RANGES.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
  assert.deepEqual(table, cmap);
  assert.deepEqual(missingGlyphs('Hello, wörld! ☃\n'), ['☃']);
});

/** The warnings each file is meant to get; every other file gets none. */
const EXPECTED: Record<string, string[]> = {
  'corpus/glob-unknown.cm': ['LIB001'],
  'corpus/lighting-camera.cm': ['LIB003', 'LIB003'],
  'corpus/planned.cm': Array<string>(14).fill('LIB003'),
  'corpus/shapes2d.cm': ['LIB003'],
  'corpus/signals.cm': ['ANI001', 'ANI001'],
  'corpus/units.cm': ['ANI001'],
  'shared/errors/extrude-circle.cm': ['LIB001'],
};

function cmFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((f) => {
      const p = path.join(dir, f);
      return statSync(p).isDirectory() ? cmFiles(p) : p.endsWith('.cm') ? [p] : [];
    })
    .sort();
}

const warned = (file: string) =>
  compile(readFileSync(file, 'utf8'))
    .diagnostics.filter((d) => d.severity === 'warning' && (d.code.startsWith('LIB') || d.code === 'ANI001'))
    .map((d) => d.code);

for (const [label, dir, skip] of [
  ['examples', ownExamplesDir, false],
  ['corpus', ownCorpusDir, false],
  ['shared', examplesDir, corpusSkip('the shared examples')],
] as const) {
  test(`the library warnings of every ${label} file are the listed ones (none for most)`, { skip }, () => {
    const files = cmFiles(dir);
    assert.ok(files.length >= 10, `${label}: ${files.length} files`);
    for (const f of files) {
      const key = `${label}/${path.relative(dir, f)}`;
      assert.deepEqual(warned(f), EXPECTED[key] ?? [], key);
    }
  });
}
