// `npm run openapi`: writes openapi/openapi.json, the document the app serves at /openapi.json, generated from the
// routes. The app is built on a temporary DATA_DIR with a renderer that never renders: documenting needs neither.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.js';
import { defaultConfig } from '../config/settings.js';
import { openApiText } from './openapi.js';
import { MemoryJobStore } from './jobs/store/memory.js';
import type { Renderer } from '../render/renderer-port.js';

const noRenderer: Renderer = {
  start: async () => {},
  close: async () => {},
  render: async () => {
    throw new Error('this app only documents its routes');
  },
};

const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-openapi-'));
try {
  const app = await buildApp({
    config: { ...defaultConfig(), dataDir, logLevel: 'silent' },
    renderer: noRenderer,
    store: new MemoryJobStore(),
  });
  await app.ready();
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'openapi', 'openapi.json');
  writeFileSync(file, openApiText(app));
  await app.close();
  console.log(`wrote ${file}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
