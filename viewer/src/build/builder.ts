// Translators per library name (viewer.md §4, §5): value tree → three.js objects, lights and frame settings.
import * as THREE from 'three';
import type { ConstructedV, Val } from './value.js';
import { angle, args, isNode, num, vec3, worldLen } from './read.js';
import { toColor } from './color.js';
import type { BuildContext } from './context.js';
import { makeStandardMaterial, meshesOf, readMaterial } from './materials.js';
import { buildExtrude, buildMetaballs, buildSvg, buildVectorize } from './solids.js';
import { runnerAtLeast } from './runner.js';

const CIRCLE_SEGMENTS = 64;

export function buildLayer(v: Val | undefined, ctx: BuildContext): THREE.Object3D | null {
  if (!v || v.kind !== 'constructed') return null;
  switch (v.name) {
    case 'compose':
      return buildCompose(v, ctx);
    case 'rect':
      return buildRect(v, ctx);
    case 'circle':
      return buildCircle(v, ctx);
    case 'sphere':
      return buildSphere(v, ctx);
    case 'render3d':
      return buildRender3d(v, ctx);
    case 'extrude':
      return buildExtrude(v, ctx);
    case 'svg':
      return buildSvg(v, ctx);
    case 'vectorize':
      return buildVectorize(v, ctx);
    case 'metaballs':
      return buildMetaballs(v, ctx);
    case 'translate':
      return translate(v, ctx);
    case 'rotate':
      return rotate(v, ctx);
    case 'scale':
      return scale(v, ctx);
    case 'squash':
      return squash(v, ctx);
    case 'pivot':
      return pivot(v, ctx);
    case 'material':
      return material(v, ctx);
    default:
      ctx.warn(`no translator for ${v.name}`);
      return null;
  }
}

/** A nested compose: a plain group of its built layers. */
function buildCompose(node: ConstructedV, ctx: BuildContext): THREE.Object3D {
  const g = new THREE.Group();
  const a = args(node);
  const l = a.named.get('layers') ?? a.pos[0];
  if (l && l.kind === 'array')
    for (const e of l.elems) {
      const o = buildLayer(e, ctx);
      if (o) g.add(o);
    }
  return g;
}

/** The frame's layers in a group; each built object keeps its layer's index as `userData.cmLayer`. */
export function buildTopLayers(layers: Val[], ctx: BuildContext): THREE.Group {
  const g = new THREE.Group();
  layers.forEach((e, i) => {
    const o = buildLayer(e, ctx);
    if (!o) return;
    o.userData.cmLayer = i;
    g.add(o);
  });
  return g;
}

function basic(ctx: BuildContext, fill: Val | undefined): THREE.MeshBasicMaterial {
  const m = ctx.track(new THREE.MeshBasicMaterial());
  toColor(fill, m.color);
  return m;
}

function buildRect(node: ConstructedV, ctx: BuildContext): THREE.Object3D {
  const a = args(node).named;
  const w = num(a.get('width'), 0) * ctx.p2w,
    h = num(a.get('height'), 0) * ctx.p2w;
  const geo = ctx.geometries.get(`rect|${w}|${h}`, () => new THREE.PlaneGeometry(w, h));
  return new THREE.Mesh(geo, basic(ctx, a.get('fill')));
}

function buildCircle(node: ConstructedV, ctx: BuildContext): THREE.Object3D {
  const a = args(node).named;
  const r = num(a.get('radius'), 0) * ctx.p2w; // Q3: radius: only
  const geo = ctx.geometries.get(`circle|${r}`, () => new THREE.CircleGeometry(r, CIRCLE_SEGMENTS));
  return new THREE.Mesh(geo, basic(ctx, a.get('fill')));
}

function buildSphere(node: ConstructedV, ctx: BuildContext): THREE.Object3D {
  const a = args(node);
  const rPx = num(a.named.get('r') ?? a.named.get('radius') ?? a.pos[0], 50);
  const r = rPx * ctx.p2w;
  const geo = ctx.geometries.get(`sphere|${r}`, () => new THREE.SphereGeometry(r, 64, 32));
  const mesh = new THREE.Mesh(
    geo,
    ctx.track(new THREE.MeshStandardMaterial({ color: 0xffffff, roughness: 1, metalness: 0 })),
  );
  mesh.userData.cmRadius = r;
  return mesh;
}

function buildRender3d(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  const a = args(node);
  const sceneV = a.named.get('scene') ?? a.pos[0];
  // runner 0.0.1 has no compose inside render3d (dropped with a warning)
  const content =
    isNode(sceneV, 'compose') && !runnerAtLeast(ctx.runner, '0.0.2')
      ? (ctx.warn('render3d: nested compose needs runner 0.0.2'), null)
      : buildLayer(sceneV, ctx);
  const lights = a.named.get('lights');
  if (lights && lights.kind === 'array') for (const l of lights.elems) addLight(l, ctx);
  const cam = a.named.get('camera');
  if (isNode(cam, 'camera')) {
    const c = args(cam).named;
    const d = c.get('distance'),
      f = c.get('fov');
    const dist = d && d.kind === 'number' && Number.isFinite(d.value) && d.value > 0 ? d.value : null;
    let fov: number | null = null;
    if (f && f.kind === 'number' && Number.isFinite(f.value) && f.value > 0)
      fov = f.unit === 'rad' ? (f.value * 180) / Math.PI : f.value;
    ctx.camera = { distancePx: dist, fovDeg: fov };
  }
  return content;
}

function lightColor(a: Map<string, Val>, ctx: BuildContext): THREE.Color {
  if (!runnerAtLeast(ctx.runner, '0.0.2')) return new THREE.Color(1, 1, 1); // 0.0.1: white lights only
  return toColor(a.get('color') ?? a.get('tint'));
}

function addLight(v: Val, ctx: BuildContext): void {
  if (!isNode(v)) return;
  const a = args(v);
  switch (v.name) {
    case 'ambient': {
      const named = runnerAtLeast(ctx.runner, '0.0.2') ? a.named.get('intensity') : undefined; // 0.0.1: positional only
      ctx.lights.push(new THREE.AmbientLight(lightColor(a.named, ctx), num(a.pos[0] ?? named, 0.3)));
      return;
    }
    case 'directional': {
      const l = new THREE.DirectionalLight(lightColor(a.named, ctx), num(a.named.get('intensity'), 1));
      const [x, y, z] = vec3(a.named.get('from'), [0, 1, 0]);
      l.position.set(x, y, z); // world units; aimed at the origin (default target)
      ctx.lights.push(l);
      return;
    }
    case 'point':
    case 'spotlight': {
      // Q9: a spotlight is a point light
      if (!runnerAtLeast(ctx.runner, '0.0.2')) {
        ctx.warn(`${v.name}: needs runner 0.0.2`);
        return;
      }
      const at = vec3(a.named.get('at') ?? a.named.get('position'), [0, 0, 0]);
      const l = new THREE.PointLight(
        lightColor(a.named, ctx),
        num(a.named.get('intensity'), 1),
        num(a.named.get('range'), 600) * ctx.p2w,
        2,
      );
      l.position.set(at[0] * ctx.p2w, at[1] * ctx.p2w, at[2] * ctx.p2w);
      ctx.lights.push(l);
      return;
    }
    case 'bloom': {
      if (!runnerAtLeast(ctx.runner, '0.0.5')) {
        ctx.warn('bloom: needs runner 0.0.5');
        return;
      }
      ctx.bloom = {
        strength: num(a.named.get('strength'), 0.8),
        radius: num(a.named.get('radius'), 0.4),
        threshold: num(a.named.get('threshold'), 0.6),
      };
      return;
    }
    default:
      ctx.warn(`not a light: ${v.name}`);
  }
}

// ---- transforms (§5.3): every one except pivot mutates the receiver's own object; T·R·S ----

function receiver(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  return buildLayer(args(node).pos[0], ctx);
}

function translate(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  const o = receiver(node, ctx);
  if (!o) return null;
  const a = args(node).named;
  o.position.x += worldLen(a.get('x'), ctx.p2w);
  o.position.y += worldLen(a.get('y'), ctx.p2w);
  o.position.z += worldLen(a.get('z'), ctx.p2w);
  return o;
}

function rotate(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  const o = receiver(node, ctx);
  if (!o) return null;
  const a = args(node).named;
  o.rotation.set(angle(a.get('x')), angle(a.get('y')), angle(a.get('z')), 'XYZ'); // Q8: sets all three
  return o;
}

function scale(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  const o = receiver(node, ctx);
  if (!o) return null;
  const s = num(args(node).pos[1], 1); // positional only
  o.scale.set(s, s, s);
  return o;
}

function squash(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  const o = receiver(node, ctx);
  if (!o) return null;
  const a = args(node);
  const f = num(a.named.get('factor') ?? a.pos[1], 0);
  const sy = Math.max(0.02, 1 - f);
  const w = f >= 0 ? Math.sqrt(1 / sy) : 1 / Math.sqrt(Math.max(0.02, 1 + f));
  o.scale.set(o.scale.x * w, o.scale.y * sy, o.scale.z * w);
  return o;
}

function boundingRadius(o: THREE.Object3D): number {
  if (typeof o.userData.cmRadius === 'number') return o.userData.cmRadius;
  let r = 0;
  for (const m of meshesOf(o)) {
    const g = m.geometry;
    if (!g.boundingSphere) g.computeBoundingSphere();
    r = Math.max(r, g.boundingSphere!.radius);
  }
  return r;
}

function pivot(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  const o = receiver(node, ctx);
  if (!o) return null;
  const anchor = args(node).pos[1];
  const r = boundingRadius(o);
  const g = new THREE.Group();
  g.userData.cmRadius = r;
  const name = isNode(anchor) ? anchor.name : '';
  if (name === 'bottom') o.position.y += r;
  else if (name === 'top') o.position.y -= r;
  else if (name === 'left') o.position.x += r;
  else if (name === 'right') o.position.x -= r;
  g.add(o);
  return g;
}

function material(node: ConstructedV, ctx: BuildContext): THREE.Object3D | null {
  const recv = args(node).pos[0];
  if (isNode(recv, 'metaballs')) return buildMetaballs(recv, ctx, node);
  const o = buildLayer(recv, ctx);
  if (!o) return null;
  const spec = readMaterial(node);
  if (!runnerAtLeast(ctx.runner, '0.0.5')) {
    spec.opacity = 1;
    if (spec.gradient) {
      spec.gradient = null;
      spec.emissiveIntensity = 0;
    }
  }
  const m = ctx.track(makeStandardMaterial(spec, ctx.images, o));
  for (const mesh of meshesOf(o)) mesh.material = m;
  return o;
}
