// Compiles the service, the standalone runner, the CLI and the export worker to plain JavaScript for `node`
// (dist/app/server.js, runner.js, worker.js, cli.js, export-worker.js): what
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
    entryPoints: {
      server: join(repoRoot, 'src', 'entry', 'server.ts'),
      runner: join(repoRoot, 'src', 'entry', 'runner.ts'),
      // `npm run worker`: a render worker taking jobs from Redis (REDIS_URL)
      worker: join(repoRoot, 'src', 'entry', 'worker.ts'),
      cli: join(repoRoot, 'src', 'cli', 'main.ts'),
      // mesh and vectorize run in worker threads started from the bundle's own URL (src/export/export-renderer.ts)
      'export-worker': join(repoRoot, 'src', 'export', 'export-worker.ts'),
      // a job's admission estimate is made, and its frames evaluated, in one too (src/render/eval-thread.ts)
      'eval-worker': join(repoRoot, 'src', 'render', 'eval-worker.ts'),
    },
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // the AWS SDK is imported only with STORAGE_URL=s3://… (storage/data-stores.ts): a chunk of its own, not a cost of
    // every start
    splitting: true,
    target: 'node20.15',
    packages: 'external',
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildApp();
