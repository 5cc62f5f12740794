// Browser entry: one full-viewport canvas; installs the page API as `window.cmViewer` at module load.
import * as THREE from 'three';
import { createPageApi, type CmViewerApi } from './page-api';
import { compile } from './lang-bridge';

declare global {
  interface Window { cmViewer: CmViewerApi }
}

const canvas = document.createElement('canvas');
document.body.appendChild(canvas);
window.cmViewer = createPageApi(canvas, compile as never, THREE.REVISION);
