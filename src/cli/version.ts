// The CLI's version, one function for `cmrender --version` and any subcommand that reports it: the version of the
// package.json at the root (the checkout's, or the image's /app/package.json), read once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';

let pkg: { name: string; version: string } | undefined;

/** The package's name and version, as its package.json says. */
export function packageFacts(): { name: string; version: string } {
  pkg ??= JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

export function cliVersion(): string {
  return packageFacts().version;
}
