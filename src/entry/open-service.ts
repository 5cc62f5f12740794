// Composition root of `cmrender open FILE` (src/cli/open-command.ts): the whole service in this process, on loopback,
// with one more route, GET /v1/open/source (src/server/routes/open-file.ts), that serves the one named file. The
// configuration is the service's (src/config/settings.ts: CHROMIUM_PATH, RENDER_GL, FFMPEG_PATH, LOG_LEVEL, ...) with
// the embedded defaults forced where a local preview needs them: host 127.0.0.1 (never another interface), jobs
// in this process (no REDIS_URL), outputs on disk, no API keys (one user on their own machine), and DATA_DIR a
// temporary directory removed at the stop unless DATA_DIR is set. The URL is known as soon as the server listens;
// the renderer warms up behind it (`ready`): Chromium launches once the server listens, not beside the start as in
// `npm start`, since on a busy machine its launch slows the loading of the service's modules, and the URL is what
// the user waits for (the page's own preview needs no renderer). It answers its own page only: a request whose Host
// is not 127.0.0.1 and its port is 403 (http/own-host.ts), and the file is read only with the random token of the
// URL it prints (`?open=<token>`), from the page's own origin (routes/open-file.ts).
import { mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, SERVICE_SETTINGS, type Config } from '../config/settings.js';
import { readSettings } from '../config/setting.js';
import { buildApp } from '../server/app.js';
import { loadStorage } from '../server/storage/data-stores.js';
import { boundAddress } from '../server/http/bound-address.js';
import { openFileRoutes } from '../server/routes/open-file.js';
import { buildRenderers } from './renderers.js';

export interface OpenServiceOptions {
  /** the file's absolute path */
  file: string;
  /** 0: a free port the system picks */
  port: number;
  log: Logger;
  env?: NodeJS.ProcessEnv;
}

export interface OpenService {
  /** the editor's URL with the file loaded */
  url: string;
  /** settles when the renderer is warm (/readyz 200) or could not start (the page's preview works either way) */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** How long a render in hand may take to finish at the stop (a local preview: not the service's 10 s). */
const STOP_GRACE_MS = 1000;

/** A local preview logs warnings and worse unless LOG_LEVEL is set (then read as the service reads it). */
export function openLogLevel(env: NodeJS.ProcessEnv): Config['logLevel'] {
  return env.LOG_LEVEL ? readSettings(SERVICE_SETTINGS.pick({ logLevel: true }), env).logLevel : 'warn';
}

export function openConfig(port: number, env: NodeJS.ProcessEnv): { config: Config; tempDir: string | null } {
  const base = loadConfig({ ...env, REDIS_URL: '', STORAGE_URL: '', API_KEYS: '', RENDER_CONCURRENCY: '' });
  const tempDir = env.DATA_DIR ? null : mkdtempSync(join(tmpdir(), 'cmrender-open-'));
  return {
    config: {
      ...base,
      host: '127.0.0.1',
      port,
      dataDir: tempDir ?? base.dataDir,
      logLevel: env.LOG_LEVEL ? base.logLevel : 'warn',
    },
    tempDir,
  };
}

export async function startOpenService(opts: OpenServiceOptions): Promise<OpenService> {
  const { config, tempDir } = openConfig(opts.port, opts.env ?? process.env);
  const removeTemp = async () => {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  };
  let renderer: ReturnType<typeof buildRenderers>['renderer'] | null = null;
  try {
    await loadStorage(config);
    const built = buildRenderers(config, opts.log);
    renderer = built.renderer;
    const joinSegments = built.joinSegments;
    // Chromium launches beside the listen; its failure is reported by `ready`, never an unhandled rejection
    const app = await buildApp({
      config,
      renderer: built.renderer,
      logger: opts.log,
      joinSegments,
      warmLater: true,
      // a page elsewhere must not reach this service by a name it rebinds to 127.0.0.1
      ownHostOnly: true,
    });
    // the URL's secret: only the page it opens reads the file (src/server/routes/open-file.ts)
    const token = randomBytes(24).toString('base64url');
    await app.register(openFileRoutes, { file: opts.file, token });
    try {
      await app.listen({ port: config.port, host: config.host });
    } catch (e) {
      await app.close().catch(() => {});
      throw e;
    }
    const ready = app.warmUp();
    ready.catch(() => {});
    return {
      url: `${boundAddress(app.server)}/?open=${token}`,
      ready,
      async close() {
        app.retention.stop();
        await app.jobs.shutdown(STOP_GRACE_MS);
        await app.close();
        await removeTemp();
      },
    };
  } catch (e) {
    // a failed start leaves no browser and no temporary directory behind (app.close closes the renderer too; twice
    // is harmless)
    await renderer?.close().catch(() => {});
    await removeTemp();
    throw e;
  }
}
