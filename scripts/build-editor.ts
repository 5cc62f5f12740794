// Bundles the editor page (editor/src/main.ts: CodeMirror, the language, the viewer's drawer) with the project's
// examples/*.cm inlined (and the examples/img/ images they name), and copies its static files and the viewer's font into dist/editor (or a directory given
// to buildEditor). Unlike the service's drawing page (build-viewer.ts) this bundle holds the whole language.
import { build } from 'esbuild';
import { existsSync, mkdirSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { FONT_PACKAGE_FILE, FONT_SERVED_NAME } from '../viewer/src/font-file.js';
import { repoRoot, editorDistDir } from '../src/paths.js';

/** An image an example draws, bundled with it: its in-source path, file name, type and bytes (base64). */
export interface ExampleImage {
  path: string;
  name: string;
  type: string;
  base64: string;
}

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg' };

/**
 * The project's own example scenes, by file name, each with the images it names (`"/img/NAME"` with NAME a file of
 * examples/img/): the editor uploads and maps them itself when the example is chosen.
 */
export function exampleSources(): { name: string; source: string; images: ExampleImage[] }[] {
  const dir = join(repoRoot, 'examples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cm'))
    .sort()
    .map((name) => {
      const source = readFileSync(join(dir, name), 'utf8');
      const names = new Set([...source.matchAll(/"\/img\/([A-Za-z0-9._-]+)"/g)].map((m) => m[1]!));
      const images = [...names].flatMap((file) => {
        const type = IMAGE_TYPES[file.slice(file.lastIndexOf('.') + 1).toLowerCase()];
        const at = join(dir, 'img', file);
        if (!type || !existsSync(at)) return [];
        return [{ path: `/img/${file}`, name: file, type, base64: readFileSync(at).toString('base64') }];
      });
      return { name, source, images };
    });
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
