// `cmrender version [--json]`: this build's version (package.json), the runner versions it renders and the newest (a
// source without a pin gets it), and the Node.js it runs on. Exit status: 0, or 2 for a usage error.
import { availableVersions, newestRunner } from '../lang/index.js';

import { VERSION_USAGE } from './usage.js';
import { packageFacts } from './version.js';

interface LineIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

export interface VersionFacts {
  name: string;
  version: string;
  runners: string[];
  newestRunner: string;
  node: string;
}

export function versionFacts(): VersionFacts {
  const pkg = packageFacts();
  return {
    name: pkg.name,
    version: pkg.version,
    runners: availableVersions(),
    newestRunner: newestRunner(),
    node: process.version,
  };
}

export function versionCommand(argv: readonly string[], io: LineIo): number {
  let json = false;
  for (const a of argv) {
    if (a === '--json') json = true;
    else {
      io.err(`error: unexpected argument '${a}'\nusage: ${VERSION_USAGE}`);
      return 2;
    }
  }
  const v = versionFacts();
  if (json) io.out(JSON.stringify(v));
  else
    io.out(
      `${v.name} ${v.version}\nrunners: ${v.runners.join(', ')} (newest ${v.newestRunner}, used when a source has no pin)\nnode: ${v.node}`,
    );
  return 0;
}
