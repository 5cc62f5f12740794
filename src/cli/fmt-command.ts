// `cmrender fmt FILE|- [--check|--write]`: the one canonical layout of a source (src/lang/format.ts). Without a flag
// the formatted source goes to stdout; `--check` exits 1 naming the file when it would change; `--write` rewrites the
// file in place when it would change. Exit status: 0 done (or already formatted), 1 would change (--check) or does
// not parse, 2 usage error, 66 unreadable file.
import { readFileSync, writeFileSync } from 'node:fs';
import { formatSource } from '../lang/format.js';
import { formatHuman } from '../lang/diagnostics.js';

import { FMT_USAGE } from './usage.js';

interface LineIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** the formatted source as it is, without a newline added (stdout) */
  write?: (s: string) => void;
}

export function fmtCommand(argv: readonly string[], io: LineIo): number {
  let check = false;
  let write = false;
  const files: string[] = [];
  for (const a of argv) {
    if (a === '--check') check = true;
    else if (a === '--write') write = true;
    else if (a.startsWith('-') && a !== '-') return usage(io, `unknown fmt flag '${a}'`);
    else files.push(a);
  }
  if (check && write) return usage(io, '`--write` and `--check` are mutually exclusive');
  if (files.length === 0) return usage(io, '`fmt` requires a source file argument');
  if (files.length > 1) return usage(io, '`fmt` accepts at most one source file');
  const file = files[0]!;
  if (write && file === '-') return usage(io, '`--write` needs a file, not standard input');
  let source: string;
  try {
    source = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.err(
      code === 'ENOENT' ? `error: file not found: ${file}` : `error: could not read ${file}: ${(e as Error).message}`,
    );
    return 66;
  }
  const r = formatSource(source);
  if (!r.ok) {
    for (const d of r.diagnostics) io.err(formatHuman(d, file));
    return 1;
  }
  if (check) {
    if (r.text === source) return 0;
    io.err(`would reformat: ${file}`);
    return 1;
  }
  if (write) {
    if (r.text !== source) {
      try {
        writeFileSync(file, r.text);
      } catch (e) {
        io.err(`error: could not write ${file}: ${(e as Error).message}`);
        return 1;
      }
      io.out(`formatted: ${file}`);
    }
    return 0;
  }
  if (io.write) io.write(r.text);
  else io.out(r.text.replace(/\n$/, ''));
  return 0;
}

function usage(io: LineIo, msg: string): number {
  io.err(`error: ${msg}\nusage: ${FMT_USAGE}`);
  return 2;
}
