// How an entry point reads its configuration: a bad value stops the start with one fatal log line naming each bad
// variable, its value and what it accepts, and exit code 2 (as the worker's missing REDIS_URL), never a stack.
import pino from 'pino';
import { ConfigError } from '../config/setting.js';

export function configOrExit<T>(read: () => T, what: string): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // the configured LOG_LEVEL is what failed to load: fatal is shown at every level but silent
    pino().fatal({ event: 'config_invalid' }, `${what} could not start: ${err.message}`);
    process.exit(2);
  }
}
