// Bundles the browser viewer (viewer/src/main.ts) and copies its static files into dist/viewer.
// dist/ is generated: never commit it.
import { build } from 'esbuild';
import { mkdirSync, copyFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { FONT_PACKAGE_FILE, FONT_SERVED_NAME } from '../viewer/src/font-file.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'viewer');
mkdirSync(out, { recursive: true });
const require = createRequire(import.meta.url);

await build({
  entryPoints: [join(root, 'viewer', 'src', 'main.ts')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  outfile: join(out, 'viewer.js'),
  minify: false,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});

for (const f of readdirSync(join(root, 'viewer', 'static'))) copyFileSync(join(root, 'viewer', 'static', f), join(out, f));
copyFileSync(require.resolve(FONT_PACKAGE_FILE), join(out, FONT_SERVED_NAME));
