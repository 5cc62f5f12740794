// How many connections the HTTP server holds at once (MAX_CONNECTIONS; 0: the open-file limit less a reserve). Every
// connection is an open file: 1,100 idle ones under the usual 1,024 limit took them all (issue 55), and then the job
// journal, an output, an asset or a Chromium pipe could not be opened, and a job in hand failed. Past the cap Node
// closes a new connection as soon as it is accepted (server.maxConnections), so the files the work needs stay free;
// idle connections still go at HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS (server-timeouts.ts), making room again.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Logger } from 'pino';

/** open files kept for everything but connections: the journal, outputs, assets, Chromium's pipes, Redis, logs */
export const RESERVED_FILES = 256;
/** at most one line a minute says connections are being refused */
const TELL_EVERY_MS = 60_000;

/** The soft open-file limit of this process (`Max open files` of /proc/self/limits); undefined: unknown or unlimited. */
export function openFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  return m && m[1] !== 'unlimited' ? Number(m[1]) : undefined;
}

/** The cap for MAX_CONNECTIONS (`setting`): the setting itself, or the open-file limit less the reserve. */
export function connectionCap(setting: number, limit: number | undefined): number | undefined {
  if (setting > 0) return setting;
  if (limit === undefined) return undefined;
  return Math.max(1, limit - RESERVED_FILES);
}

/** Caps `server`'s connections, and logs (at most once a minute) that new ones are refused at the cap. */
export function capConnections(server: Server, setting: number, log: Logger): void {
  const cap = connectionCap(setting, openFileLimit());
  if (cap === undefined) return;
  server.maxConnections = cap;
  let toldAt = -Infinity;
  let dropped = 0;
  server.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - toldAt < TELL_EVERY_MS) return;
    toldAt = now;
    log.warn(
      { max_connections: cap, dropped, event: 'connections_refused' },
      `${cap} connections held (MAX_CONNECTIONS): new ones are closed at once`,
    );
  });
}
