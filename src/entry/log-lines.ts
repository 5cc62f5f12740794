// Where a process's log goes, and in what form: one JSON object a line (pino's own, for collectors) when standard
// output is a file or a pipe; on a terminal, readable lines in pino-pretty's manner, `12:04:05 INFO  start: storage
// 3 ms (phase=storage ms=3)`, so `npm start` in a terminal is read by a person. The JSON is the same either way: a
// terminal's line is made from it.
import { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLOURS: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '1;31' };
/** pino's own fields, said by the line's head, not repeated in its tail */
const OWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'v']);

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/** One pino JSON line as a person reads it; a line that is not pino's JSON passes as it is. */
export function prettyLine(json: string, colour = false): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  if (!o || typeof o !== 'object' || typeof o.level !== 'number') return json;
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString().slice(11, 19) : '--:--:--';
  const level = (LEVELS[o.level] ?? String(o.level)).padEnd(5);
  const head = colour ? `\u001b[${COLOURS[o.level] ?? '0'}m${level}\u001b[0m` : level;
  const rest = Object.entries(o)
    .filter(([k]) => !OWN.has(k))
    .map(([k, v]) => `${k}=${value(v)}`);
  const msg = typeof o.msg === 'string' ? o.msg : '';
  return `${time} ${head} ${msg}${rest.length ? ` (${rest.join(' ')})` : ''}`;
}

/** A pino destination that writes readable lines to `out`. */
export function prettyDestination(out: NodeJS.WritableStream, colour: boolean): DestinationStream {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      pending += chunk.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        out.write(prettyLine(pending.slice(0, nl), colour) + '\n');
        pending = pending.slice(nl + 1);
      }
      done();
    },
  }) as unknown as DestinationStream;
}

/** Standard output's destination: readable lines on a terminal (coloured unless NO_COLOR), else pino's JSON. */
export function logDestination(
  out: NodeJS.WriteStream = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): DestinationStream | undefined {
  if (!out.isTTY) return undefined;
  return prettyDestination(out, !env.NO_COLOR);
}
