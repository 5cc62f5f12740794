#!/usr/bin/env node
// cmrender CLI entry. It runs the compiled dist/app/cli.js that `npm run build` writes: in the Docker image (no
// sources there) always, and in a checkout whenever dist/ is current (scripts/build-stamp.js: the app and the
// drawing page built from the sources as they are now), so a call starts in a fraction of a second. A checkout with
// edits not yet built runs the TypeScript sources through tsx instead, so an edit never meets a stale build.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const compiled = fileURLToPath(new URL('../dist/app/cli.js', import.meta.url));
const stamp = fileURLToPath(new URL('../scripts/build-stamp.js', import.meta.url));

async function tsx() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return null;
  }
}

async function compiledIsCurrent() {
  if (!existsSync(source)) return existsSync(compiled);
  if (!existsSync(stamp)) return false;
  const { current } = await import(stamp);
  return current('app') && current('viewer');
}

let cli;
const loader = (await compiledIsCurrent()) ? null : await tsx();
if (loader) {
  loader.register();
  cli = await import(source);
} else if (existsSync(compiled)) {
  cli = await import(compiled);
} else {
  process.stderr.write(`cmrender: ${compiled} is missing: run \`npm run build\`\n`);
  process.exit(70);
}
process.exitCode = await cli.main(process.argv.slice(2));
