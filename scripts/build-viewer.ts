// Bundles the drawing page (viewer/src/main.ts) and copies its static files and font into dist/viewer (or a
// directory given to buildViewer). dist/ is generated: never commit it.
import { build } from 'esbuild';
import { mkdirSync, copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { FONT_PACKAGE_FILE, FONT_SERVED_NAME } from '../viewer/src/font-file.js';
import { repoRoot, viewerDistDir } from '../src/paths.js';

export async function buildViewer(out = viewerDistDir): Promise<string> {
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [join(repoRoot, 'viewer', 'src', 'main.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    outfile: join(out, 'viewer.js'),
    minify: false,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const f of readdirSync(join(repoRoot, 'viewer', 'static')))
    copyFileSync(join(repoRoot, 'viewer', 'static', f), join(out, f));
  copyFileSync(createRequire(import.meta.url).resolve(FONT_PACKAGE_FILE), join(out, FONT_SERVED_NAME));
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildViewer();
