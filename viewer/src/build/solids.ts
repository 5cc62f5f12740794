// The solids drawn by the geometry builders of viewer/src/meshes (viewer.md §5.6). Every call into the
// meshes module is kept in this one file. Geometries are cached per job by their defining arguments.
import * as THREE from 'three';
import type { ConstructedV } from './value.js';
import { args, isNode, num, str, vec2 } from './read.js';
import type { BuildContext } from './context.js';
import {
  glyphGeometry,
  glyphLayout,
  glyphOutline,
  instanceMatrix,
  runPlacement,
  runRadius,
  runInstancesGeometry,
  pathGeometry,
  svgGeometry,
  traceToSvg,
  metaballsObject,
  type Blob3,
  type MetaballsObject,
  type RasterImage,
  type VectorizeOptions,
} from '../meshes/index.js';
import { imagePath, svgStr, vec3 } from './read.js';
import { toColor } from './color.js';
import { runnerAtLeast } from './runner.js';

function whiteStandard(ctx: BuildContext): THREE.MeshStandardMaterial {
  return ctx.track(new THREE.MeshStandardMaterial()); // white, roughness 1, metalness 0
}

/**
 * A glyph run: one cached outline per distinct character (and size, depth), drawn as instances at the pens
 * (meshes/glyph-run.ts), so a page of text extrudes each letter once. The group's radius is the run's, for pivot.
 */
function glyphRun(font: never, o: Parameters<typeof glyphGeometry>[1], ctx: BuildContext): THREE.Object3D {
  const layout = glyphLayout(font, o.text);
  const outlines = new Map<string, THREE.BufferGeometry | null>();
  for (const { ch } of layout) {
    if (outlines.has(ch)) continue;
    const key = `glyph-outline|${ch}|${o.sizePx}|${o.depthPx}|${o.p2w}|${o.fullDetail}`;
    outlines.set(
      ch,
      ctx.geometries.get(key, () => glyphOutline(font, ch, o)),
    );
  }
  const outlineOf = (ch: string) => outlines.get(ch) ?? null;
  const placement = runPlacement(font, layout, (ch) => outlineOf(ch)?.boundingBox ?? null, o);
  const pens = new Map<string, number[]>();
  for (const { ch, pen } of layout) {
    if (!outlineOf(ch)) continue;
    const list = pens.get(ch);
    if (list) list.push(pen);
    else pens.set(ch, [pen]);
  }
  const group = new THREE.Group();
  const material = whiteStandard(ctx);
  const m = new THREE.Matrix4();
  for (const [ch, list] of pens) {
    // cached like the outline, so a seek reuses it; its key carries the text, which fixes the pens
    const key = `glyph-instances|${ch}|${o.sizePx}|${o.depthPx}|${o.p2w}|${o.fullDetail}|${o.text}`;
    const geometry = ctx.geometries.get(key, () => runInstancesGeometry(outlineOf(ch)!, list));
    const mesh = new THREE.InstancedMesh(geometry, material, list.length);
    mesh.userData.cmGlyphRun = true;
    for (let i = 0; i < list.length; i++) mesh.setMatrixAt(i, instanceMatrix(placement, list[i]!, m));
    mesh.instanceMatrix.needsUpdate = true;
    mesh.computeBoundingBox();
    mesh.computeBoundingSphere();
    ctx.instances.push(mesh);
    group.add(mesh);
  }
  group.userData.cmRadius = runRadius(layout, outlineOf, placement);
  return group;
}

/** extrude(text.glyph(...) | path(...), depth:) */
export function buildExtrude(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  const a = args(node);
  const shape = a.named.get('shape') ?? a.pos[0];
  const depthPx = num(a.named.get('depth'), 16); // Q17: only the named depth
  if (isNode(shape, 'text.glyph')) {
    if (!ctx.font) {
      ctx.warn('extrude: font not loaded');
      return null;
    }
    const g = args(shape);
    let text = str(g.pos[0] ?? g.named.get('text')) ?? '';
    if (text === '') text = '?';
    const sv = g.named.get('size');
    const sizePx = sv && sv.kind === 'number' && Number.isFinite(sv.value) ? sv.value : null;
    const font = ctx.font as never;
    const o = {
      text,
      sizePx,
      depthPx,
      p2w: ctx.p2w,
      frameWidthPx: ctx.frameWidthPx,
      runner: ctx.runner,
      fullDetail: ctx.glyphsFull,
    };
    if (!runnerAtLeast(ctx.runner, '0.0.2')) {
      // 0.0.1 draws the first character alone, with its own curve sampling
      const key = `glyph|${text}|${sizePx}|${depthPx}|${ctx.p2w}|${ctx.frameWidthPx}|${ctx.runner}`;
      const geo = ctx.geometries.get(key, () => glyphGeometry(font, o));
      return geo ? new THREE.Mesh(geo, whiteStandard(ctx)) : null;
    }
    return glyphRun(font, o, ctx);
  }
  if (isNode(shape, 'path')) {
    if (!runnerAtLeast(ctx.runner, '0.0.3')) {
      ctx.warn('extrude(path): needs runner 0.0.3');
      return null;
    }
    const p = args(shape);
    const list = p.named.get('points') ?? p.pos.find((v) => v.kind === 'array');
    const pts: [number, number][] = [];
    if (list && list.kind === 'array')
      for (const e of list.elems) {
        const v = vec2(e);
        if (v) pts.push(v);
      }
    if (pts.length < 3) {
      ctx.warn('extrude: need ≥3 points');
      return null;
    }
    const key = `path|${pts.join(';')}|${depthPx}|${ctx.p2w}`;
    const geo = ctx.geometries.get(key, () => pathGeometry(pts, depthPx, ctx.p2w));
    if (!geo) return null;
    return new THREE.Mesh(geo, whiteStandard(ctx));
  }
  ctx.warn('extrude: not a path or a glyph');
  return null;
}

/** A geometry builder result as one object: a mesh, or a group of meshes, each with a fresh white material. */
function solidObject(res: THREE.BufferGeometry | THREE.Group | null, ctx: BuildContext): THREE.Object3D | null {
  if (!res) return null;
  if ((res as THREE.BufferGeometry).isBufferGeometry)
    return new THREE.Mesh(res as THREE.BufferGeometry, whiteStandard(ctx));
  const g = new THREE.Group();
  (res as THREE.Group).traverse((o) => {
    const m = o as THREE.Mesh;
    if (!m.isMesh) return;
    m.updateMatrixWorld();
    const mesh = new THREE.Mesh(m.geometry, whiteStandard(ctx));
    m.matrixWorld.decompose(mesh.position, mesh.quaternion, mesh.scale);
    g.add(mesh);
  });
  return g;
}

/** Cached builder results that are groups (the cache holds plain geometries). */
const groupCache = new WeakMap<object, Map<string, THREE.Group | null>>();
function cachedSolid(
  ctx: BuildContext,
  key: string,
  make: () => THREE.BufferGeometry | THREE.Group | null,
): THREE.BufferGeometry | THREE.Group | null {
  let groups = groupCache.get(ctx.geometries);
  if (!groups) {
    groups = new Map();
    groupCache.set(ctx.geometries, groups);
  }
  if (groups.has(key)) return groups.get(key)!;
  let group: THREE.Group | null = null;
  const geo = ctx.geometries.get(key, () => {
    const r = make();
    if (r && !(r as THREE.BufferGeometry).isBufferGeometry) {
      group = r as THREE.Group;
      return null;
    }
    return r as THREE.BufferGeometry | null;
  });
  if (group) {
    groups.set(key, group);
    return group;
  }
  return geo;
}

/** svg(source, depth:, size:, round:) (§5.6.4) */
export function buildSvg(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  if (!runnerAtLeast(ctx.runner, '0.0.5')) {
    ctx.warn('svg: not in this runner');
    return null;
  }
  const a = args(node);
  const text = svgStr(a.named.get('source') ?? a.pos[0]);
  if (text === null) {
    ctx.warn('svg: no source');
    return null;
  }
  const depthPx = num(a.named.get('depth'), 16),
    sizePx = num(a.named.get('size'), 400),
    roundPx = num(a.named.get('round'), 0);
  const key = `svg|${depthPx}|${sizePx}|${roundPx}|${ctx.p2w}|${ctx.runner}|${text}`;
  let res: THREE.BufferGeometry | THREE.Group | null = null;
  try {
    res = cachedSolid(ctx, key, () =>
      svgGeometry(text, { depthPx, sizePx, roundPx, p2w: ctx.p2w, runner: ctx.runner }),
    );
  } catch (e) {
    ctx.warn(`svg: ${e instanceof Error ? e.message : e}`);
    return null;
  }
  return solidObject(res, ctx);
}

/** The image drawn at the trace's working size with the browser's default smoothing (§5.6.5 step 1). */
function rasterOf(img: HTMLImageElement, maxDim: number): RasterImage | null {
  const ow = img.naturalWidth,
    oh = img.naturalHeight;
  if (!(ow > 0 && oh > 0)) return null;
  const sigma = Math.min(1, maxDim / Math.max(ow, oh));
  const w = Math.max(1, Math.round(ow * sigma)),
    h = Math.max(1, Math.round(oh * sigma));
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  const g = c.getContext('2d', { willReadFrequently: true });
  if (!g) return null;
  g.drawImage(img, 0, 0, w, h);
  const d = g.getImageData(0, 0, w, h);
  return { width: w, height: h, data: d.data, naturalWidth: ow, naturalHeight: oh };
}

/** vectorize(image(...), ...) (§5.6.5): traced once per job (the image is preloaded), then cached. */
export function buildVectorize(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  if (!runnerAtLeast(ctx.runner, '0.0.13')) {
    ctx.warn('vectorize: not in this runner');
    return null;
  }
  const a = args(node);
  const path = imagePath(a.named.get('source') ?? a.pos[0]);
  if (path === null) {
    ctx.warn('vectorize: no image');
    return null;
  }
  const nm = a.named;
  const opts: VectorizeOptions = {
    strokeWidth: num(nm.get('stroke_width') ?? nm.get('strokeWidth'), 6),
    simplify: num(nm.get('simplify'), 1.5),
    bridge: num(nm.get('bridge'), 2),
    threshold: num(nm.get('threshold'), 0.5),
    stitch: num(nm.get('stitch'), 6),
    maxDim: 700,
  };
  const depthPx = num(nm.get('depth'), 16),
    sizePx = num(nm.get('size'), 400),
    roundPx = num(nm.get('round'), 0);
  const entry = ctx.images.entry(path);
  if (entry.status !== 'ok' || !entry.image) {
    ctx.warn(`vectorize: image ${path} not loaded`);
    return null;
  }
  const img = entry.image;
  const key = `vectorize|${path}|${JSON.stringify(opts)}|${depthPx}|${sizePx}|${roundPx}|${ctx.p2w}`;
  let res: THREE.BufferGeometry | THREE.Group | null = null;
  try {
    res = cachedSolid(ctx, key, () => {
      const raster = rasterOf(img, opts.maxDim);
      if (!raster) return null;
      const svg = traceToSvg(raster, opts);
      return svgGeometry(svg, { depthPx, sizePx, roundPx, p2w: ctx.p2w, runner: '0.0.13' });
    });
  } catch (e) {
    ctx.warn(`vectorize: ${e instanceof Error ? e.message : e}`);
    return null;
  }
  return solidObject(res, ctx);
}

/** metaballs([...], smoothing:) (§5.6.6): one shader quad per occurrence, reused across frames. */
const metaCache = new WeakMap<object, Map<string, MetaballsObject>>();
export function buildMetaballs(node: ConstructedV, ctx: BuildContext, material?: ConstructedV): THREE.Object3D | null {
  if (!runnerAtLeast(ctx.runner, '0.0.2')) {
    ctx.warn('metaballs: not in this runner');
    return null;
  }
  const a = args(node);
  const list = a.named.get('blobs') ?? a.pos[0];
  const blobs: Blob3[] = [];
  if (list && list.kind === 'array') {
    for (const e of list.elems) {
      if (!isNode(e, 'blob')) continue;
      const b = args(e).named;
      const [x, y, z] = vec3(b.get('at'), [0, 0, 0]);
      blobs.push({ x, y, z, r: num(b.get('radius'), 100) });
    }
  }
  if (blobs.length === 0) return null;
  const smoothingPx = num(a.named.get('smoothing'), 80);
  let cache = metaCache.get(ctx.geometries);
  if (!cache) {
    cache = new Map();
    metaCache.set(ctx.geometries, cache);
  }
  const key = `${ctx.aspect}|${ctx.p2w}|${ctx.metaballIndex++}`;
  let obj = cache.get(key);
  if (!obj) {
    obj = metaballsObject(blobs, { smoothingPx, p2w: ctx.p2w, aspect: ctx.aspect });
    obj.userData.cmMetaballs = true;
    cache.set(key, obj);
  }
  obj.update(blobs, smoothingPx);
  // a reused quad starts each frame untransformed
  obj.position.set(0, 0, 5);
  obj.rotation.set(0, 0, 0);
  obj.scale.set(1, 1, 1);
  obj.removeFromParent();
  if (material) {
    const m = args(material).named;
    const fill = m.get('fill'),
      emissive = m.get('emissive'),
      rough = m.get('roughness');
    obj.setMaterial({
      fill: fill ? toColor(fill) : undefined,
      emissive: emissive ? toColor(emissive) : undefined,
      roughness: rough && rough.kind === 'number' && Number.isFinite(rough.value) ? rough.value : undefined,
    });
  } else obj.setMaterial({});
  return obj;
}
