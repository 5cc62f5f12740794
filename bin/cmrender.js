#!/usr/bin/env node
// cmrender CLI entry. In a checkout (src/ and tsx present) it runs the TypeScript sources through tsx, so an edit
// never meets a stale build; where there are no sources or no tsx (the Docker image, `npm ci --omit=dev`) it runs
// the compiled dist/app/cli.js that `npm run build` writes.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const compiled = fileURLToPath(new URL('../dist/app/cli.js', import.meta.url));

async function tsx() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return null;
  }
}

let cli;
const loader = existsSync(source) ? await tsx() : null;
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
