// The CLI's version, one function for `cmrender --version` and any subcommand that reports it: the version of the
// package.json at the root (the checkout's, or the image's /app/package.json), read once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';

let version: string | undefined;

export function cliVersion(): string {
  version ??= (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
