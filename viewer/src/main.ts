// Browser entry of the drawing page: one canvas at the page's top-left; installs the page API as
// `window.cmViewer` at module load. The bundle holds no parser or checker: values arrive evaluated. Loaded with
// `?offscreen` (the service), frames are drawn into the viewer's own target and the canvas shows nothing.
import * as THREE from 'three';
import { createPageApi, type CmViewerApi, type DrawError } from './page-api.js';

declare global {
  interface Window {
    cmViewer: CmViewerApi;
  }
}

const canvas = document.createElement('canvas');
document.body.appendChild(canvas);
try {
  window.cmViewer = createPageApi(canvas, THREE.REVISION, {
    offscreen: new URLSearchParams(location.search).has('offscreen'),
  });
} catch (e) {
  // no WebGL (or another boot fault): still install the API, so the driver gets an error instead of a hang
  const error: DrawError = {
    code: 'context_lost',
    message: `viewer could not start: ${e instanceof Error ? e.message : String(e)}`,
  };
  window.cmViewer = {
    load: async () => ({ ok: false, error }),
    draw: async () => ({ ok: false, error }),
    pixels: () => new Uint8Array(0),
    pixelsAsRead: () => new Uint8Array(0),
    pixelsI420: () => new Uint8Array(0),
    damage: null,
    ready: false,
    error,
    width: 0,
    height: 0,
    runner: '',
    warnings: [],
    versions: { three: THREE.REVISION },
    stats: { geometries: 0, textures: 0, programs: 0, geometriesBuilt: 0, lastDrawMs: 0, drawn: 0, skipped: 0 },
  };
  console.error(`[render] ERR: ${error.message}`);
}
