// The diagnostic registry (src/lang/diagnostic-docs.ts): every code the language or the service's image check can
// emit has an entry, every entry is a code that is emitted, every wrong snippet produces its code and every right
// snippet compiles clean (the service's ASS codes through the job's image check, with the images the entry names).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import { compile, imagePaths } from '../../src/lang/index.js';
import { DIAGNOSTIC_DOCS, diagnosticDoc, diagnosticDocsPath } from '../../src/lang/diagnostic-docs.js';
import { JobAssets } from '../../src/render/job-assets.js';
import { JobFailure } from '../../src/render/renderer-port.js';
import { repoRoot } from '../helpers/shared.js';

/** Every diagnostic code written as a literal in the sources of a folder (the codes that folder can emit). */
function codesIn(dir: string, skip: (f: string) => boolean = () => false): Set<string> {
  const out = new Set<string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !skip(e.name))
        for (const m of readFileSync(p, 'utf8').matchAll(/'([A-Z]{3}\d{3})'/g)) out.add(m[1]!);
    }
  };
  walk(dir);
  return out;
}

const errors = (source: string) =>
  compile(source)
    .diagnostics.filter((d) => d.severity === 'error')
    .map((d) => d.code);

test('every code the language and the image check emit has an entry, and every entry is an emitted code', () => {
  const lang = codesIn(path.join(repoRoot, 'src/lang'), (f) => f.endsWith('-docs.ts'));
  const service = [...codesIn(path.join(repoRoot, 'src/render'))].filter((c) => c.startsWith('ASS'));
  assert.ok(lang.has('NAM003') && lang.has('EVL012') && service.includes('ASS001'), 'the scan finds codes');
  const emitted = new Set([...lang, ...service]);
  const documented = new Set(DIAGNOSTIC_DOCS.map((d) => d.code));
  assert.deepEqual([...emitted].filter((c) => !documented.has(c)).sort(), [], 'emitted but not explained');
  assert.deepEqual([...documented].filter((c) => !emitted.has(c)).sort(), [], 'explained but never emitted');
  assert.equal(documented.size, DIAGNOSTIC_DOCS.length, 'one entry per code');
});

test('every entry has a title, a long explanation and both snippets (an entry without them says why)', () => {
  for (const d of DIAGNOSTIC_DOCS) {
    assert.ok(d.title.length > 3 && d.title.length < 60, d.code);
    assert.ok(d.explanation.length >= 100, `${d.code}: the explanation is a paragraph`);
    if (d.noSnippet) {
      assert.ok(!d.wrong && !d.right, `${d.code}: no snippets, as noSnippet says`);
      continue;
    }
    assert.ok(d.wrong && d.right, `${d.code} has a wrong and a right snippet`);
  }
  assert.equal(diagnosticDoc('NAM003')?.title, 'Unknown identifier');
  assert.equal(diagnosticDoc('XYZ999'), undefined);
  assert.equal(diagnosticDocsPath('NAM003'), '/v1/diagnostics/NAM003');
});

for (const d of DIAGNOSTIC_DOCS.filter((x) => x.wrong && x.stage !== 'service')) {
  test(`${d.code}: the wrong snippet produces it, the right one compiles clean`, () => {
    // a warning's wrong snippet produces it as a warning (the job renders); an error's as an error
    const wrong = d.severity === 'error' ? errors(d.wrong!) : compile(d.wrong!).diagnostics.map((x) => x.code);
    assert.ok(wrong.includes(d.code), `${d.code} wrong gave ${JSON.stringify(wrong)}`);
    assert.deepEqual(errors(d.right!), [], `${d.code} right`);
    assert.deepEqual(compile(d.right!).diagnostics, [], `${d.code} right has no warnings either`);
  });
}

/** A PNG file of the given size: only its header matters to the check, so a big one is still a small file. */
function pngFile(dir: string, name: string, width: number, height: number): string {
  const file = path.join(dir, name);
  if (width * height > 4_000_000) {
    // the IHDR of a real PNG with the size patched in: the header is what the image check reads
    const small = PNG.sync.write(new PNG({ width: 1, height: 1 }));
    small.writeUInt32BE(width, 16);
    small.writeUInt32BE(height, 20);
    small.writeUInt32BE(crc32(small.subarray(12, 29)), 29); // the IHDR's checksum, which the check verifies
    writeFileSync(file, small);
  } else writeFileSync(file, PNG.sync.write(new PNG({ width, height })));
  return file;
}

test("ASS001 and ASS002: the wrong snippets fail the job's image check with their code, the right ones pass", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cm-diag-docs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const small = pngFile(dir, 'small.png', 1920, 1080);
  const huge = pngFile(dir, 'huge.png', 20000, 20000);
  const imageCheck = (source: string, assets: Record<string, string>): string | null => {
    const c = compile(source);
    assert.ok(c.ok && c.program, 'the snippet itself compiles clean');
    try {
      new JobAssets(assets, source).check(imagePaths(c.program.sceneAt(0).value));
      return null;
    } catch (e) {
      assert.ok(e instanceof JobFailure);
      return e.code;
    }
  };
  const a1 = diagnosticDoc('ASS001')!;
  assert.equal(imageCheck(a1.wrong!, {}), 'ASS001');
  assert.equal(imageCheck(a1.right!, { '/img/photo.png': small }), null);
  const a2 = diagnosticDoc('ASS002')!;
  assert.equal(imageCheck(a2.wrong!, { '/img/photo.png': huge }), 'ASS002');
  assert.equal(imageCheck(a2.right!, { '/img/photo.png': small }), null);
});
