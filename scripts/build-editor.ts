// Bundles the editor page (editor/src/main.ts: CodeMirror, the language, the viewer's drawer) with the project's
// examples/*.cm inlined, and copies its static files and the viewer's font into dist/editor (or a directory given
// to buildEditor). Unlike the service's drawing page (build-viewer.ts) this bundle holds the whole language.
import { build } from 'esbuild';
import { mkdirSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { FONT_PACKAGE_FILE, FONT_SERVED_NAME } from '../viewer/src/font-file.js';
import { repoRoot, editorDistDir } from '../src/paths.js';

/** The project's own example scenes, by file name. */
export function exampleSources(): { name: string; source: string }[] {
  const dir = join(repoRoot, 'examples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cm'))
    .sort()
    .map((name) => ({ name, source: readFileSync(join(dir, name), 'utf8') }));
}

export async function buildEditor(out = editorDistDir): Promise<string> {
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [join(repoRoot, 'editor', 'src', 'main.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    outfile: join(out, 'editor.js'),
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    define: { __CM_EXAMPLES__: JSON.stringify(exampleSources()) },
  });
  for (const f of readdirSync(join(repoRoot, 'editor', 'static')))
    copyFileSync(join(repoRoot, 'editor', 'static', f), join(out, f));
  // the page preloads the drawer's font, whose name is the viewer's to say
  const html = join(out, 'index.html');
  writeFileSync(html, readFileSync(html, 'utf8').replaceAll('%FONT%', FONT_SERVED_NAME));
  copyFileSync(createRequire(import.meta.url).resolve(FONT_PACKAGE_FILE), join(out, FONT_SERVED_NAME));
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildEditor();
