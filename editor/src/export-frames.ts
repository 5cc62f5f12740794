// The export's own drawer: the service's drawer (viewer/src/page-api.ts's createPageApi) on a canvas of its own at
// the output size, never the preview's (which is screen-fitted and keeps playing). One is made on the first export
// and kept, so the page holds one extra WebGL context whatever the number of exports.
import * as THREE from 'three';
import { createPageApi, type CmViewerApi, type DrawError } from '../../viewer/src/page-api.js';
import type { Program } from '../../src/lang/index.js';
import { BrowserExportError } from './export-plan.js';

let shared: CmViewerApi | null = null;

function describe(e: DrawError): string {
  return e.path ? `${e.code} ${e.message} (${e.path})` : `${e.code}: ${e.message}`;
}

/** Draws the frames of one export: `load` once, then `drawAt(t)` for each frame time in order. */
export class ExportFrames {
  private constructor(
    private readonly api: CmViewerApi,
    private readonly program: Program,
  ) {}

  /** A drawer loaded at width x height for the program's runner, with the page's uploaded images. */
  static async open(
    program: Program,
    size: { width: number; height: number },
    assets: Record<string, string>,
  ): Promise<ExportFrames> {
    if (!shared) {
      try {
        shared = createPageApi(document.createElement('canvas'), THREE.REVISION);
      } catch (e) {
        throw new BrowserExportError(
          `this browser cannot draw the scene (${e instanceof Error ? e.message : String(e)})`,
        );
      }
    }
    const urls = Object.fromEntries(Object.entries(assets).map(([p, k]) => [p, `/v1/assets/${k}`]));
    const r = await shared.load({ width: size.width, height: size.height, runner: program.runner, assets: urls });
    if (!r.ok) throw new BrowserExportError(describe(r.error));
    return new ExportFrames(shared, program);
  }

  /** Draws the scene at t seconds (an unchanged value is not drawn again: its pixels are the previous frame's). */
  async drawAt(t: number): Promise<void> {
    const scene = this.program.sceneAt(t);
    const err = scene.diagnostics.find((d) => d.severity === 'error');
    if (err) throw new BrowserExportError(`${err.code} ${err.message} (line ${err.line}, at t = ${t} s)`);
    const r = await this.api.draw(scene.value, JSON.stringify(scene.value));
    if (!r.ok) throw new BrowserExportError(describe(r.error));
  }

  /** RGBA of the frame drawn last, top row first. */
  rgba(): Uint8Array {
    return this.api.pixels();
  }

  /** The frame drawn last as I420, BT.709 limited range: the bytes the service hands its ffmpeg. */
  i420(): Uint8Array {
    return this.api.pixelsI420();
  }
}
