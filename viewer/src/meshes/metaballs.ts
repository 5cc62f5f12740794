// metaballs([...blob], smoothing:) — viewer.md §5.6.6: a raymarched smooth-union field on a screen quad.
import * as THREE from 'three';
import type { Blob3, MetaballsMaterialInput, MetaballsObject, MetaballsOptions } from './types';
import { CAM_Z, FOV_DEG, MAX_METABALLS } from './constants';

export const METABALL_DEFAULTS = {
  albedo: [0.40, 0.035, 0.012] as const,
  rim: [1.0, 0.45, 0.10] as const,
  specExp: 80,
  maxSteps: 180,
  hitEps: 0.0006,
  maxDist: 16,
  normalEps: 0.0012,
  quadZ: 5,
};

const vertexShader = /* glsl */ `
varying vec3 vWorld;
void main() {
  vec4 w = modelMatrix * vec4(position, 1.0);
  vWorld = w.xyz;
  gl_Position = projectionMatrix * viewMatrix * w;
}`;

const fragmentShader = /* glsl */ `
#define MAX_BLOBS ${MAX_METABALLS}
uniform vec4 uBlobs[MAX_BLOBS];
uniform int uCount;
uniform float uK;
uniform vec3 uAlbedo;
uniform vec3 uRim;
uniform float uSpecExp;
varying vec3 vWorld;

float smin(float a, float b, float k) {
  float h = clamp(0.5 + 0.5 * (b - a) / k, 0.0, 1.0);
  return b * (1.0 - h) + a * h - k * h * (1.0 - h);
}

float field(vec3 p) {
  float d = 1e9;
  for (int i = 0; i < MAX_BLOBS; i++) {
    if (i >= uCount) break;
    vec4 b = uBlobs[i];
    d = smin(length(p - b.xyz) - b.w, d, uK);
  }
  return d;
}

void main() {
  vec3 ro = cameraPosition;
  vec3 rd = normalize(vWorld - ro);
  float t = 0.0;
  bool hit = false;
  vec3 p = ro;
  for (int i = 0; i < ${METABALL_DEFAULTS.maxSteps}; i++) {
    p = ro + rd * t;
    float d = field(p);
    if (d < ${METABALL_DEFAULTS.hitEps.toFixed(4)}) { hit = true; break; }
    t += d;
    if (t > ${METABALL_DEFAULTS.maxDist.toFixed(1)}) break;
  }
  if (!hit) discard;

  const float e = ${METABALL_DEFAULTS.normalEps.toFixed(4)};
  vec3 v1 = vec3(1.0, -1.0, -1.0), v2 = vec3(-1.0, -1.0, 1.0), v3 = vec3(-1.0, 1.0, -1.0), v4 = vec3(1.0, 1.0, 1.0);
  vec3 n = normalize(v1 * field(p + e * v1) + v2 * field(p + e * v2) + v3 * field(p + e * v3) + v4 * field(p + e * v4));

  vec3 V = -rd;
  vec3 K = normalize(vec3(-0.45, 0.8, 0.5));
  vec3 keyCol = vec3(1.0, 0.5, 0.22);
  vec3 F = normalize(vec3(0.6, -0.3, 0.5));
  vec3 fillCol = vec3(0.9, 0.25, 0.08);
  float spec = pow(max(dot(n, normalize(K + V)), 0.0), uSpecExp);
  float fres = pow(1.0 - max(dot(n, V), 0.0), 2.5);
  vec3 col = uAlbedo * (0.10 + max(dot(n, K), 0.0) * keyCol + max(dot(n, F), 0.0) * fillCol)
           + 1.05 * spec + 1.4 * fres * uRim;
  gl_FragColor = vec4(col, 1.0);
  #include <colorspace_fragment>
}`;

/** sRGB → linear per channel, applied a second time to already-linear colours (QUIRK Q14). */
export function srgbToLinearChannel(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

function decodeTwice(c: THREE.Color): THREE.Vector3 {
  return new THREE.Vector3(srgbToLinearChannel(c.r), srgbToLinearChannel(c.g), srgbToLinearChannel(c.b));
}

/** Quad height at 1 world in front of the camera: 2·tan(FOV/2) = 0.498656. */
export const METABALL_QUAD_HEIGHT = 2 * (CAM_Z - METABALL_DEFAULTS.quadZ) * Math.tan((FOV_DEG / 2) * Math.PI / 180);

export function metaballsObject(blobs: Blob3[], o: MetaballsOptions): MetaballsObject {
  const uBlobs = Array.from({ length: MAX_METABALLS }, () => new THREE.Vector4(0, 0, 0, 0));
  const uniforms = {
    uBlobs: { value: uBlobs },
    uCount: { value: 0 },
    uK: { value: 1e-6 },
    uAlbedo: { value: new THREE.Vector3(...METABALL_DEFAULTS.albedo) },
    uRim: { value: new THREE.Vector3(...METABALL_DEFAULTS.rim) },
    uSpecExp: { value: METABALL_DEFAULTS.specExp },
  };
  const material = new THREE.ShaderMaterial({ uniforms, vertexShader, fragmentShader });
  const h = METABALL_QUAD_HEIGHT;
  const geo = new THREE.PlaneGeometry(h * o.aspect, h);
  const mesh = new THREE.Mesh(geo, material) as unknown as MetaballsObject;
  mesh.name = 'metaballs';
  mesh.position.set(0, 0, METABALL_DEFAULTS.quadZ);
  mesh.frustumCulled = false;
  mesh.renderOrder = 1;

  let smoothingPx = o.smoothingPx;
  mesh.update = (next: Blob3[], smoothing?: number) => {
    if (smoothing !== undefined) smoothingPx = smoothing;
    const n = Math.min(next.length, MAX_METABALLS);
    for (let i = 0; i < MAX_METABALLS; i++) {
      const b = i < n ? next[i] : null;
      if (b) uBlobs[i].set(b.x * o.p2w, b.y * o.p2w, b.z * o.p2w, b.r * o.p2w);
      else uBlobs[i].set(0, 0, 0, 0);
    }
    uniforms.uCount.value = n;
    // k = 0 divides by zero in smin: clamp to a tiny positive radius (hard union in practice).
    uniforms.uK.value = Math.max(1e-6, (Number.isFinite(smoothingPx) ? smoothingPx : 80) * o.p2w);
    mesh.visible = n > 0; // no blobs: nothing is drawn
  };
  mesh.setMaterial = (m: MetaballsMaterialInput) => {
    if (m.fill) uniforms.uAlbedo.value.copy(decodeTwice(m.fill));
    else uniforms.uAlbedo.value.set(...METABALL_DEFAULTS.albedo);
    if (m.emissive) uniforms.uRim.value.copy(decodeTwice(m.emissive));
    else uniforms.uRim.value.set(...METABALL_DEFAULTS.rim);
    uniforms.uSpecExp.value = m.roughness !== undefined && Number.isFinite(m.roughness)
      ? 100 - 84 * m.roughness : METABALL_DEFAULTS.specExp;
  };
  mesh.update(blobs);
  mesh.setMaterial({ fill: o.fill, emissive: o.emissive, roughness: o.roughness });
  return mesh;
}

/** CPU twin of the shader's distance field (world units), for tests and picking. */
export function metaballField(p: THREE.Vector3, blobs: Blob3[], smoothingPx: number, p2w: number): number {
  const k = Math.max(1e-6, smoothingPx * p2w);
  let d = 1e9;
  for (const b of blobs.slice(0, MAX_METABALLS)) {
    const a = Math.hypot(p.x - b.x * p2w, p.y - b.y * p2w, p.z - b.z * p2w) - b.r * p2w;
    const h = Math.min(1, Math.max(0, 0.5 + 0.5 * (d - a) / k));
    d = d * (1 - h) + a * h - k * h * (1 - h);
  }
  return d;
}
