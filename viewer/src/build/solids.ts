// The solids drawn by the geometry builders of viewer/src/meshes (viewer.md §5.6). Every call into the
// meshes module is kept in this one file. Geometries are cached per job by their defining arguments.
import * as THREE from 'three';
import type { ConstructedV } from './value';
import { args, isNode, num, str, vec2 } from './read';
import type { BuildContext } from './context';
import { glyphGeometry, pathGeometry } from '../meshes/index';

function whiteStandard(ctx: BuildContext): THREE.MeshStandardMaterial {
  return ctx.track(new THREE.MeshStandardMaterial()); // white, roughness 1, metalness 0
}

/** extrude(text.glyph(...) | path(...), depth:) */
export function buildExtrude(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  const a = args(node);
  const shape = a.named.get('shape') ?? a.pos[0];
  const depthPx = num(a.named.get('depth'), 16); // Q17: only the named depth
  if (isNode(shape, 'text.glyph')) {
    if (!ctx.font) { ctx.warn('extrude: font not loaded'); return null; }
    const g = args(shape);
    let text = str(g.pos[0] ?? g.named.get('text')) ?? '';
    if (text === '') text = '?';
    const sv = g.named.get('size');
    const sizePx = sv && sv.kind === 'number' && Number.isFinite(sv.value) ? sv.value : null;
    const key = `glyph|${text}|${sizePx}|${depthPx}|${ctx.p2w}|${ctx.frameWidthPx}|${ctx.runner}`;
    const font = ctx.font;
    const geo = ctx.geometries.get(key, () =>
      glyphGeometry(font as never, { text, sizePx, depthPx, p2w: ctx.p2w, frameWidthPx: ctx.frameWidthPx, runner: ctx.runner }));
    if (!geo) return null;
    return new THREE.Mesh(geo, whiteStandard(ctx));
  }
  if (isNode(shape, 'path')) {
    const p = args(shape);
    const list = p.named.get('points') ?? p.pos.find((v) => v.kind === 'array');
    const pts: [number, number][] = [];
    if (list && list.kind === 'array') for (const e of list.elems) { const v = vec2(e); if (v) pts.push(v); }
    if (pts.length < 3) { ctx.warn('extrude: need ≥3 points'); return null; }
    const key = `path|${pts.join(';')}|${depthPx}|${ctx.p2w}`;
    const geo = ctx.geometries.get(key, () => pathGeometry(pts, depthPx, ctx.p2w));
    if (!geo) return null;
    return new THREE.Mesh(geo, whiteStandard(ctx));
  }
  ctx.warn('extrude: not a path or a glyph');
  return null;
}

/** svg(source, depth:, size:, round:): needs the meshes module's svgGeometry (not available yet). */
export function buildSvg(_node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  ctx.warn('svg: geometry builder not available in this build');
  return null;
}

/** vectorize(image(...), ...): needs traceToSvg + svgGeometry (not available yet). */
export function buildVectorize(_node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  ctx.warn('vectorize: geometry builder not available in this build');
  return null;
}

/** metaballs([...], smoothing:): needs metaballsObject (not available yet). */
export function buildMetaballs(_node: ConstructedV, ctx: BuildContext, _material?: ConstructedV): THREE.Object3D | null {
  ctx.warn('metaballs: builder not available in this build');
  return null;
}
