// Browser entry: one canvas at the page's top-left; installs the page API as `window.cmViewer` at module load.
import * as THREE from 'three';
import { createPageApi, type CmViewerApi, type LoadResult } from './page-api';
import { compile } from './lang-bridge';

declare global {
  interface Window { cmViewer: CmViewerApi }
}

const canvas = document.createElement('canvas');
document.body.appendChild(canvas);
try {
  window.cmViewer = createPageApi(canvas, compile as never, THREE.REVISION);
} catch (e) {
  // no WebGL (or another boot fault): still install the API, so the driver gets an error instead of a hang
  const message = `viewer could not start: ${e instanceof Error ? e.message : String(e)}`;
  const error = { message, code: null };
  const failed: LoadResult = { ok: false, message, code: null };
  window.cmViewer = {
    load: async () => failed,
    seek: () => { throw new Error(message); },
    pixels: () => new Uint8Array(0),
    ready: false, error, duration: 0, width: 0, height: 0, pending: 0, warnings: [], changed: false,
    versions: { three: THREE.REVISION },
    stats: { geometries: 0, textures: 0, programs: 0, geometriesBuilt: 0, lastSeekMs: 0, drawn: 0, skipped: 0 },
  };
  console.error(`[render] ERR: ${message}`);
}
