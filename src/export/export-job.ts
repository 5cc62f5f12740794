// One mesh or vectorize job, from its input to the output file: what the export worker runs. Reads the input (the
// SVG is the job's source; the image is the asset the source path names), builds the output with the library and
// writes it atomically (`<out>.tmp` + rename, like the renderer). The output's size is what the job view reports:
// a mesh's bounding box (width x height, mesh units, rounded), a vectorized drawing's viewBox (its image's pixels).
import { readFile, rename, rm, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { svgToGlb } from './mesh.js';
import { vectorizeImage } from './vectorize.js';
import { ExportError } from './errors.js';
import { CODE } from '../contract/error-codes.js';

/** the params a mesh or a vectorize reads (a job's record holds every kind's, strings included) */
type NumericParam =
  'depth' | 'size' | 'round' | 'strokeWidth' | 'threshold' | 'simplify' | 'bridge' | 'stitch' | 'maxDim';

export interface ExportTask {
  kind: 'mesh' | 'vectorize';
  source: string;
  params: { [K in NumericParam]?: number };
  /** in-source path -> file */
  assets: Record<string, string>;
  outPath: string;
}

export interface ExportResult {
  width: number;
  height: number;
  bytes: number;
  build_ms: number;
  write_ms: number;
}

export async function runExportTask(t: ExportTask): Promise<ExportResult> {
  const t0 = performance.now();
  let out: Buffer;
  let size: { width: number; height: number };
  if (t.kind === 'mesh') {
    out = svgToGlb(t.source, { depth: t.params.depth, size: t.params.size, round: t.params.round });
    size = glbSize(out);
  } else {
    const file = t.assets[t.source];
    if (!file) throw new ExportError(CODE.not_an_image, `no image for the source path "${t.source}": map it in assets`);
    const p = t.params;
    const svg = vectorizeImage(await readFile(file), {
      strokeWidth: p.strokeWidth,
      threshold: p.threshold,
      simplify: p.simplify,
      bridge: p.bridge,
      stitch: p.stitch,
      maxDim: p.maxDim,
    });
    out = Buffer.from(svg, 'utf8');
    size = svgSize(svg);
  }
  const t1 = performance.now();
  await mkdir(dirname(t.outPath), { recursive: true });
  const tmp = `${t.outPath}.tmp`;
  try {
    await writeFile(tmp, out);
    await rename(tmp, t.outPath);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  return { ...size, bytes: out.length, build_ms: t1 - t0, write_ms: performance.now() - t1 };
}

/** Width and height of a GLB's only mesh, from the POSITION accessor's min and max (glTF requires them). */
function glbSize(glb: Buffer): { width: number; height: number } {
  const json = JSON.parse(glb.toString('utf8', 20, 20 + glb.readUInt32LE(12)));
  const a = json.accessors[json.meshes[0].primitives[0].attributes.POSITION];
  return { width: Math.max(1, Math.round(a.max[0] - a.min[0])), height: Math.max(1, Math.round(a.max[1] - a.min[1])) };
}

/** The viewBox of the tracer's SVG: the image's own size in pixels. */
function svgSize(svg: string): { width: number; height: number } {
  const m = /viewBox="\s*[-\d.]+\s+[-\d.]+\s+([\d.]+)\s+([\d.]+)"/.exec(svg);
  return m
    ? { width: Math.max(1, Math.round(+m[1])), height: Math.max(1, Math.round(+m[2])) }
    : { width: 1, height: 1 };
}
