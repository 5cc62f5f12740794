// The CLI's version line, one function for `cmrender --version` and any subcommand that reports it: the
// package.json version, inlined by the build (the compiled CLI needs no package.json beside it).
import { version } from '../../package.json';

export function cliVersion(): string {
  return version;
}
