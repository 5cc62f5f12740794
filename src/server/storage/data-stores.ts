// The stores every process keeps under DATA_DIR, built one way for the embedded service, a cluster API process and a
// render worker: outputs (DATA_DIR/outputs, with the output byte budget) and uploaded assets (DATA_DIR/assets).
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { JobStore } from '../jobs/store.js';
import { OutputStore } from '../outputs/output-store.js';
import { AssetStore } from '../asset-store.js';

export function dataStores(
  config: Pick<Config, 'dataDir' | 'outputMaxBytes' | 'assetsMaxBytes'>,
  store: JobStore,
  log: Logger,
  now: () => number,
): { outputs: OutputStore; assets: AssetStore } {
  return {
    outputs: new OutputStore({
      dir: join(config.dataDir, 'outputs'),
      store,
      maxBytes: config.outputMaxBytes,
      log,
      now,
    }),
    assets: new AssetStore(join(config.dataDir, 'assets'), config.assetsMaxBytes),
  };
}
