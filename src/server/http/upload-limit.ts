// The size limits of an upload, enforced as the bytes arrive: Fastify's bodyLimit does not apply to multipart
// bodies (@fastify/multipart pipes the raw request into its parser), and the parser itself, past a file's limit,
// only stops keeping the bytes: it reads the rest of the body, however long, before the route can answer.
import type { IncomingMessage } from 'node:http';
import type { ErrorEnvelope } from './schemas/error-envelope.js';
import { badRequest, type HttpError } from './http-error.js';
import { CODE, envelope } from '../../contract/error-codes.js';

export interface BodyWatch {
  /** the limit watched */
  readonly max: number;
  /** true once more than max bytes have arrived */
  readonly over: boolean;
  /** resolves the moment more than max bytes have arrived; never otherwise */
  readonly passed: Promise<'too_large'>;
  /** stops counting */
  stop(): void;
}

/** Counts the body's bytes as they arrive (beside whatever consumes them) and says when they pass `max`. */
export function watchBody(raw: IncomingMessage, max: number): BodyWatch {
  let seen = 0;
  let pass!: (v: 'too_large') => void;
  const watch = {
    max,
    over: false,
    passed: new Promise<'too_large'>((r) => (pass = r)),
    stop: () => raw.off('data', onData),
  };
  function onData(chunk: Buffer): void {
    seen += chunk.length;
    if (seen <= max) return;
    watch.over = true;
    watch.stop();
    pass('too_large');
  }
  raw.on('data', onData);
  return watch;
}

/** how long a connection answered before its body was read stays half-open for the client to read the answer */
export const LINGER_MS = 2_000;

/**
 * After an answer given before the request's body was read: the connection is closed without reading the rest
 * and without losing the answer. Node's own close (destroySoon, for `connection: close`) destroys the socket as
 * soon as the answer is written; with the client's unread bytes still in the kernel's buffer that sends a reset,
 * and a client that had not yet read the answer loses it (seen here: 1 run in 3). So the answer is followed by a
 * FIN only, nothing more is read, and the socket is destroyed LINGER_MS later (or when it closes): by then the
 * client has the answer. The request is destroyed with its socket, so a parser waiting on it lets go.
 */
export function closeUnread(req: IncomingMessage): void {
  const socket = req.socket;
  socket.once('close', () => req.destroy());
  socket.destroySoon = () => {
    // Node resumed the request to drop its bytes (it does for a body nobody read): it stays paused instead
    req.pause();
    socket.end();
    const t = setTimeout(() => socket.destroy(), LINGER_MS);
    t.unref();
    socket.once('close', () => clearTimeout(t));
  };
}

/** 413: the body of one upload passed UPLOAD_MAX_BYTES. */
export function uploadTooLarge(max: number): ErrorEnvelope {
  return envelope(CODE.upload_too_large, `the upload is larger than ${max} bytes`);
}

/** 400 (the contract's status for it): one file passed its limit. */
export function fileTooLarge(): HttpError {
  return badRequest(CODE.file_too_large);
}
