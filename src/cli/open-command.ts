// `cmrender open FILE [--port N] [--browser] [--json]`: the service in this process on loopback (src/entry/
// open-service.ts), its editor with FILE loaded; the page follows the file as it changes on disk (it polls GET
// /v1/open/source, editor/src/open-file.ts), and a reload reads the file as it is now. Edits made in the page are
// not written back to the file: the file on disk is the source of truth, and when it changes the page takes it
// even over unsaved edits in the page (undo brings those back). Prints the URL as soon as the server listens
// (`--json`: one line {url, file}); a browser is opened only with `--browser`. Runs until SIGINT or SIGTERM, then
// stops the service and exits 0. Exit status: 0 stopped by a signal, 1 the service could not start (e.g. the port
// is taken), 2 usage error, 66 unreadable file.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { spawn } from 'node:child_process';
import pino from 'pino';
import { OPEN_USAGE } from './usage.js';

interface LineIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** The largest file served: the CLI's cap on a source (main.ts). */
const MAX_FILE = 16 * 1024 * 1024;
/** After a signal, how long the stop may take before the process exits anyway. */
const STOP_LIMIT_MS = 15_000;

export async function openCommand(argv: readonly string[], io: LineIo): Promise<number> {
  let port = 0;
  let browser = false;
  let json = false;
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--browser') browser = true;
    else if (a === '--json') json = true;
    else if (a === '--port' || a.startsWith('--port=')) {
      const v = a === '--port' ? argv[++i] : a.slice(7);
      if (v === undefined) return usage(io, '`--port` requires a port number (e.g. `--port 8080`)');
      if (!/^\d{1,5}$/.test(v) || Number(v) > 65535) return usage(io, `--port must be 0 to 65535, not '${v}'`);
      port = Number(v);
    } else if (a.startsWith('-')) return usage(io, `unknown open flag '${a}'`);
    else files.push(a);
  }
  if (files.length === 0) return usage(io, '`open` requires a source file argument');
  if (files.length > 1) return usage(io, '`open` serves one file');
  const file = resolve(files[0]!);
  try {
    if (statSync(file).size > MAX_FILE) throw new Error(`file larger than ${MAX_FILE} bytes`);
    readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.err(
      code === 'ENOENT'
        ? `error: file not found: ${files[0]}`
        : `error: could not read ${files[0]}: ${(e as Error).message}`,
    );
    return 66;
  }

  // the service's log goes to stderr (stdout carries the URL), warnings and worse unless LOG_LEVEL says otherwise
  const { startOpenService, openLogLevel } = await import('../entry/open-service.js');
  let service: Awaited<ReturnType<typeof startOpenService>>;
  try {
    const log = pino({ level: openLogLevel(process.env) }, pino.destination(2));
    service = await startOpenService({ file, port, log });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.err(
      code === 'EADDRINUSE'
        ? `error: port ${port} on 127.0.0.1 is in use (leave out --port for a free one)`
        : `error: the service could not start: ${(e as Error).message}`,
    );
    return 1;
  }
  const stopped = new Promise<void>((done) => {
    const stop = () => {
      const limit = setTimeout(() => process.exit(1), STOP_LIMIT_MS);
      limit.unref();
      service.close().then(done, (e: unknown) => {
        io.err(`error: the stop failed: ${(e as Error).message}`);
        done();
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

  if (json) io.out(JSON.stringify({ url: service.url, file }));
  else {
    io.out(`serving ${file} at ${service.url}`);
    io.err(
      'The page follows the file as it changes on disk (the file wins over edits made in the page); edits in the page are not written back to the file. Ctrl+C stops.',
    );
  }
  service.ready.catch((e: unknown) =>
    io.err(
      `warning: the renderer could not start (${(e as Error).message}): the page's own preview works, renders through the service will fail`,
    ),
  );
  if (browser) openBrowser(service.url, io);
  await stopped;
  return 0;
}

/** The system's way to open a URL in the default browser; its failure is said, and the service keeps serving. */
function openBrowser(url: string, io: LineIo): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const said = { failed: false };
  const fail = (why: string) => {
    if (said.failed) return;
    said.failed = true;
    io.err(`warning: could not open a browser (${cmd}: ${why}): open ${url} yourself`);
  };
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', (e) => fail((e as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : e.message));
    child.on('exit', (code) => {
      if (code) fail(`exit status ${code}`);
    });
    child.unref();
  } catch (e) {
    fail((e as Error).message);
  }
}

function usage(io: LineIo, msg: string): number {
  io.err(`error: ${msg}\nusage: ${OPEN_USAGE}`);
  return 2;
}
