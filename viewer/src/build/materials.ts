// `.material(...)` (viewer.md §5.2): one new MeshStandardMaterial for every mesh of the subtree.
import * as THREE from 'three';
import type { ConstructedV, Val } from './value.js';
import { args, imagePath, isNode, isNum, num } from './read.js';
import { toColor } from './color.js';
import type { ImageStore } from './assets.js';
import { PEN_ATTRIBUTE, PEN_SHIFT_ATTRIBUTE } from '../meshes/index.js';

export interface MaterialSpec {
  fill: Val | undefined;
  texturePath: string | null;
  metalness: number;
  roughness: number;
  emissive: Val | undefined;
  emissiveIntensity: number;
  gradient: { top: number; bottom: number } | null;
  opacity: number;
}

export function readMaterial(node: ConstructedV): MaterialSpec {
  const a = args(node).named;
  const fill = a.get('fill');
  const ei = a.get('emissive_intensity');
  let gradient: MaterialSpec['gradient'] = null;
  let emissiveIntensity = 0;
  if (isNode(ei, 'gradient')) {
    const g = args(ei).named;
    gradient = { top: num(g.get('top'), 1), bottom: num(g.get('bottom'), 1) };
    emissiveIntensity = 1;
  } else emissiveIntensity = num(ei, 0);
  return {
    fill,
    texturePath: fill && fill.kind === 'constructed' ? imagePath(fill) : null,
    metalness: num(a.get('metalness'), 0),
    roughness: num(a.get('roughness'), 1),
    emissive: a.get('emissive'),
    emissiveIntensity,
    gradient,
    opacity: isNum(a.get('opacity')) ? num(a.get('opacity'), 1) : 1,
  };
}

/** Meshes of a subtree (including the root). */
export function meshesOf(obj: THREE.Object3D): THREE.Mesh[] {
  const out: THREE.Mesh[] = [];
  obj.traverse((o) => {
    if ((o as THREE.Mesh).isMesh && !o.userData.cmMetaballs) out.push(o as THREE.Mesh);
  });
  return out;
}

const GRADIENT_KEY = 'cm-emissive-gradient';

export function makeStandardMaterial(
  spec: MaterialSpec,
  images: ImageStore,
  subtree: THREE.Object3D,
): THREE.MeshStandardMaterial {
  const m = new THREE.MeshStandardMaterial();
  if (spec.texturePath !== null) {
    m.color.setRGB(1, 1, 1);
    m.map = images.texture(spec.texturePath);
  } else toColor(spec.fill, m.color);
  m.metalness = spec.metalness;
  m.roughness = spec.roughness;
  toColor(spec.emissive, m.emissive); // Q7: white by default
  m.emissiveIntensity = spec.emissiveIntensity;
  if (spec.opacity < 1) {
    m.transparent = true;
    m.opacity = spec.opacity;
  }
  const patches: ShaderPatch[] = [];
  if (m.map && meshesOf(subtree).some((mesh) => mesh.userData.cmGlyphRun)) patches.push(RUN_UV);
  if (spec.gradient) {
    const box = new THREE.Box3();
    for (const mesh of meshesOf(subtree)) {
      const g = mesh.geometry;
      if (!g.boundingBox) g.computeBoundingBox();
      box.union(g.boundingBox!);
    }
    const yMin = box.isEmpty() ? 0 : box.min.y,
      yMax = box.isEmpty() ? 0 : box.max.y;
    if (yMax - yMin >= 1e-6) patches.push(gradientPatch(m, yMin, yMax, spec.gradient.top, spec.gradient.bottom));
  }
  if (patches.length > 0) {
    const key = patches.map((p) => p.key).join('+');
    m.customProgramCacheKey = () => key;
    m.onBeforeCompile = (shader) => {
      for (const p of patches) p.apply(shader);
    };
  }
  return m;
}

/** A change to the standard material's shaders, and the key of the programs it makes. */
interface ShaderPatch {
  key: string;
  apply(shader: THREE.WebGLProgramParametersWithUniforms): void;
}

/**
 * An image on a glyph run drawn as instances (meshes/glyph-run.ts): u gains the instance's pen where the whole run's
 * extrusion takes u from x, so the image spans the run as on the reference's one geometry. Only instanced draws have
 * the attributes; any other mesh under the same material keeps three.js's UVs.
 */
const RUN_UV: ShaderPatch = {
  key: 'cm-run-uv',
  apply(shader) {
    shader.vertexShader = shader.vertexShader
      .replace(
        '#include <common>',
        `#include <common>\n#ifdef USE_INSTANCING\nattribute float ${PEN_SHIFT_ATTRIBUTE};\nattribute float ${PEN_ATTRIBUTE};\n#endif`,
      )
      .replace(
        '#include <uv_vertex>',
        `#include <uv_vertex>\n#if defined( USE_INSTANCING ) && defined( USE_MAP )\n\tvMapUv = ( mapTransform * vec3( MAP_UV + vec2( ${PEN_SHIFT_ATTRIBUTE} * ${PEN_ATTRIBUTE}, 0.0 ), 1 ) ).xy;\n#endif`,
      );
  },
};

/** Emissive ramp: total emissive radiance × mix(bottom, top, s) with s the local y normalised to the box. */
function gradientPatch(
  m: THREE.MeshStandardMaterial,
  yMin: number,
  yMax: number,
  top: number,
  bottom: number,
): ShaderPatch {
  const uniforms = {
    cmYMin: { value: yMin },
    cmYMax: { value: yMax },
    cmTop: { value: top },
    cmBottom: { value: bottom },
  };
  m.userData.cmGradient = uniforms;
  return {
    key: GRADIENT_KEY,
    apply(shader) {
      Object.assign(shader.uniforms, uniforms);
      shader.vertexShader = shader.vertexShader
        .replace('#include <common>', '#include <common>\nvarying float vCmY;')
        .replace('#include <begin_vertex>', '#include <begin_vertex>\nvCmY = position.y;');
      shader.fragmentShader = shader.fragmentShader
        .replace(
          '#include <common>',
          '#include <common>\nvarying float vCmY;\nuniform float cmYMin;\nuniform float cmYMax;\nuniform float cmTop;\nuniform float cmBottom;',
        )
        .replace(
          '#include <emissivemap_fragment>',
          '#include <emissivemap_fragment>\n{ float cmS = clamp((vCmY - cmYMin) / max(1e-4, cmYMax - cmYMin), 0.0, 1.0);\n  totalEmissiveRadiance *= mix(cmBottom, cmTop, cmS); }',
        );
    },
  };
}
