// Compiles the service and the CLI to plain JavaScript for `node` (dist/app/server.js, dist/app/cli.js): what
// `npm start` and the Docker image run, so production needs neither tsx nor TypeScript. esbuild bundles our own
// modules (src/ and the viewer modules src/export shares) and leaves every package an import, resolved from
// node_modules at run time. Type-checking is tsc's job (`npm run typecheck`), not this step's.
import { build } from 'esbuild';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../src/paths.js';

/** dist/app, where the compiled entry points go. */
export const appDistDir = join(repoRoot, 'dist', 'app');

export async function buildApp(out = appDistDir): Promise<string> {
  await build({
    entryPoints: { server: join(repoRoot, 'src', 'server', 'main.ts'), cli: join(repoRoot, 'src', 'cli', 'main.ts') },
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.15',
    packages: 'external',
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildApp();
