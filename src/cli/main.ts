// `cmrender` command line: `check FILE|- [--json]` (`-` reads standard input), `eval FILE --at T [--json]` (the
// language, synchronous; both take the scene's args: `--arg name=value`, `--arg-json name=JSON`, `--args FILE.json`,
// arg-flags.ts), `schema FILE` (the JSON Schema of the scene's args), and the local renders and exports: `render FILE -o OUT.png|.mp4|.gif`, `mesh IN.svg -o
// OUT.glb`, `vectorize IN.png -o OUT.svg` (render-command.ts, export-commands.ts; these answer a promise, and are
// loaded only when asked for, so help, version and check never load the renderer), `explain CODE`
// (explain-command.ts), `fmt FILE` (fmt-command.ts), `version` (version-command.ts), `mcp` (mcp-command.ts: the
// MCP server over stdio, for local agents) and `open FILE` (open-command.ts: the editor on loopback with the file
// loaded, following it on disk; loaded only when asked for, as it starts the whole service).
// Manners: `--help`/`-h` (alone or after any subcommand) prints usage on stdout and exits 0; `--version` prints the
// version; a bare `cmrender`, an unknown subcommand or flag prints the error and the usage on stderr and exits 2.
// Exit status: 0 clean (warnings allowed), 1 any error diagnostic or failed render (and, with `check --strict`, any
// warning), 2 usage error, 66 unreadable file.
// Human output of check: each diagnostic as `file:line:col: error[CODE]: message` over its source line with the
// span underlined (src/cli/pretty.ts), then a count ("2 errors"); `ok: FILE` on stdout when there is no error.

import { readFileSync } from 'node:fs';
import { compile, describeScene, type Diagnostic } from '../lang/index.js';
import { ARG_FLAGS, ArgsFileError, argsFromFlags, type ArgFlag } from './arg-flags.js';
import { UsageError } from './flags.js';
import { parseAt } from './time.js';
import type { ProgressSink } from './progress.js';
import { ansi, formatCount, formatDiagnostic, plain, useColour } from './pretty.js';
import { asksHelp, SUBCOMMAND_USAGE, USAGE } from './usage.js';
// the language's own commands: light (no renderer), loaded with the CLI
import { explainCommand } from './explain-command.js';
import { fmtCommand } from './fmt-command.js';
import { versionCommand } from './version-command.js';
import { cliVersion } from './version.js';

export { parseAt };

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** where a render's progress goes; stderr by default */
  progress?: ProgressSink;
  /** ANSI colour on `err` (diagnostics); off unless the caller says so. */
  colour?: boolean;
}

const defaultIo: Io = {
  out: (s) => process.stdout.write(s + '\n'),
  err: (s) => process.stderr.write(s + '\n'),
  progress: process.stderr,
  colour: useColour(process.stderr),
};

const MAX_FILE = 16 * 1024 * 1024;

function usage(io: Io, msg: string): number {
  io.err(`error: ${msg}\n${USAGE}`);
  return 2;
}

export function main(argv: string[], io: Io = defaultIo): number | Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd) return usage(io, 'a subcommand is required');
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(USAGE);
    return 0;
  }
  if (cmd === '--version' || cmd === '-V') {
    io.out(`cmrender ${cliVersion()}`);
    return 0;
  }
  const sub = SUBCOMMAND_USAGE[cmd];
  if (!sub) return usage(io, `unknown ${cmd.startsWith('-') ? 'flag' : 'subcommand'} '${cmd}'`);
  if (asksHelp(rest)) {
    io.out(`usage: ${sub}`);
    return 0;
  }
  const fileIo = { out: io.out, err: io.err, progress: io.progress ?? process.stderr };
  if (cmd === 'render') return import('./render-command.js').then((m) => m.renderCommand(rest, fileIo));
  if (cmd === 'mesh') return import('./export-commands.js').then((m) => m.meshCommand(rest, fileIo));
  if (cmd === 'vectorize') return import('./export-commands.js').then((m) => m.vectorizeCommand(rest, fileIo));
  if (cmd === 'explain') return explainCommand(rest, io);
  if (cmd === 'version') return versionCommand(rest, io);
  if (cmd === 'fmt') return fmtCommand(rest, io === defaultIo ? { ...io, write: (s) => process.stdout.write(s) } : io);
  if (cmd === 'mcp') return import('./mcp-command.js').then((m) => m.mcpCommand(rest, io));
  if (cmd === 'open') return import('./open-command.js').then((m) => m.openCommand(rest, io));
  let json = false;
  let strict = false;
  let at: number | null = null;
  const files: string[] = [];
  const argFlags: ArgFlag[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const argFlag = ARG_FLAGS.find((f) => a === f || a.startsWith(`${f}=`));
    if (argFlag) {
      const v = a === argFlag ? rest[++i] : a.slice(argFlag.length + 1);
      if (v === undefined) return usage(io, `'${argFlag}' needs a value`);
      argFlags.push({ flag: argFlag, value: v });
    } else if (a === '--json' && cmd !== 'schema') json = true;
    else if (a === '--strict' && cmd === 'check') strict = true;
    else if (a === '--at' && cmd === 'eval') {
      const v = rest[++i];
      if (v === undefined) return usage(io, '`--at` requires a duration argument (e.g. `--at 1.5s`)');
      at = parseAt(v);
      if (at === null) return usage(io, `could not parse \`--at ${v}\` as a duration`);
    } else if (a.startsWith('--at=') && cmd === 'eval') {
      at = parseAt(a.slice(5));
      if (at === null) return usage(io, `could not parse \`${a}\` as a duration`);
    } else if (a.startsWith('-') && a !== '-') return usage(io, `unknown flag '${a}'`);
    else files.push(a);
  }
  if (files.length === 0) return usage(io, `\`${cmd}\` requires a source file argument`);
  if (files.length > 1) return usage(io, `unexpected extra argument: ${files[1]}`);
  if (cmd === 'eval' && at === null) at = 0;
  const file = files[0]!;
  let source: string;
  try {
    // `-` is standard input (file descriptor 0), e.g. `docker run -i IMAGE cmrender check - < scene.cm`
    const buf = readFileSync(file === '-' ? 0 : file);
    if (buf.length > MAX_FILE) throw new Error(`file larger than ${MAX_FILE} bytes`);
    source = buf.toString('utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.err(
      code === 'ENOENT' ? `error: file not found: ${file}` : `error: could not read ${file}: ${(e as Error).message}`,
    );
    return 66;
  }
  let args: Record<string, unknown> | undefined;
  try {
    args = argsFromFlags(argFlags, source);
  } catch (e) {
    if (e instanceof UsageError) return usage(io, e.message);
    if (e instanceof ArgsFileError) {
      io.err(`error: ${e.message}`);
      return 66;
    }
    throw e;
  }
  if (cmd === 'schema') return schemaCommand(source, file, args, io);
  const t0 = process.hrtime.bigint();
  const c = compile(source, { args });
  const described = describeScene(source, args);
  let diagnostics: Diagnostic[] = c.diagnostics;
  let value: unknown = null;
  if (cmd === 'eval' && c.program && c.ok) {
    const r = c.program.sceneAt(at!);
    value = r.value;
    diagnostics = [...diagnostics, ...r.diagnostics];
  }
  const ok = !diagnostics.some((d) => d.severity === 'error') && c.argProblems.length === 0;
  // --strict: a warning (a library call that renders silently wrong, LIB*/ANI001) fails the check too
  const passed = ok && !(strict && diagnostics.some((d) => d.severity === 'warning'));
  const totalNs = Number(process.hrtime.bigint() - t0);
  if (json) {
    const env: Record<string, unknown> = { schemaVersion: 1, ok, diagnostics, path: file };
    // the signature of the scene a render uses (with the args), and what is wrong with the args
    env.scene = described.scene;
    if (args !== undefined) {
      env.args = args;
      env.argProblems = c.argProblems;
    }
    if (cmd === 'eval') {
      env.at = at;
      env.runner = c.runner;
      env.durationSeconds = c.program?.durationSeconds ?? null;
      env.value = value;
    }
    env.timing = { totalNs };
    io.out(JSON.stringify(env));
  } else {
    const style = io.colour ? ansi : plain;
    for (const p of c.argProblems) io.err(`${file}: error[invalid_args]: ${p.message}`);
    for (const d of diagnostics) io.err(formatDiagnostic(d, source, file, style) + '\n');
    if (diagnostics.length > 0) io.err(formatCount(diagnostics));
    if (cmd === 'eval' && value !== null) io.out(JSON.stringify(value, null, 2));
    if (passed && cmd === 'check') io.out(`ok: ${file}`);
  }
  return passed ? 0 : 1;
}

/** `cmrender schema FILE`: the JSON Schema (2020-12) of the args of the scene a render uses; 1 when there is none. */
function schemaCommand(source: string, file: string, args: Record<string, unknown> | undefined, io: Io): number {
  const d = describeScene(source, args);
  for (const p of d.problems) io.err(`${file}: error[invalid_args]: ${p.message}`);
  if (d.problems.length > 0) return 1;
  if (!d.scene) {
    io.err(
      `${file}: error: ${d.parsed ? 'no scene to render, so no args' : 'the source does not parse (see cmrender check)'}`,
    );
    return 1;
  }
  io.out(JSON.stringify(d.scene.schema, null, 2));
  return 0;
}
