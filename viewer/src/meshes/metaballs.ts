// metaballs([...blob], smoothing:) — viewer.md §5.6.6: a raymarched smooth-union field on a screen quad.
import * as THREE from 'three';
import type { Blob3, MetaballsMaterialInput, MetaballsObject, MetaballsOptions } from './types.js';
import { CAM_Z, FOV_DEG, MAX_METABALLS } from './constants.js';

export const METABALL_DEFAULTS = {
  albedo: [0.4, 0.035, 0.012] as const,
  rim: [1.0, 0.45, 0.1] as const,
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
// BLOB_COUNT (1..MAX_BLOBS) comes from the material's defines: the loops over the blobs have a compile-time trip
// count (same operations in the same order as a loop up to uCount, so the same values; fewer branches per step)
uniform vec4 uBlobs[MAX_BLOBS];
uniform int uCount;
uniform float uK;
uniform float uInflate;
uniform float uMissEps;
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
  for (int i = 0; i < BLOB_COUNT; i++) {
    vec4 b = uBlobs[i];
    d = smin(length(p - b.xyz) - b.w, d, uK);
  }
  return d;
}

// Conservative miss test: a speed-up only, it never changes a pixel. The march ends as a hit only where
// field(p) < hitEps; a ray that provably never gets there ends as a miss, i.e. discard, so it is discarded
// without marching and every other ray marches exactly as before. Facts about smin(a, d) used (h in [0, 1]):
// smin <= min(a, d); smin >= min(a, d) - k/4; smin == d when a >= d + k (h clamps to 0).
// With g_i the distance of the ray (t >= 0) to blob i's surface, a_i(p) = |p - c_i| - r_i >= g_i on the ray.
// (1) field >= min_i a_i - (n - 1) k/4, so gmin > uInflate = (n - 1) k/4 + E is a miss (E = hitEps + margin).
// (2) Let S = {i : g_i < T}, s = |S|. Blobs outside S have a_i >= T. Once the chain value d <= T - k they leave
//     it unchanged, and d never increases; so only the step that brings d below T - k and the s steps of S can
//     lower d by k/4 each: field >= min(gmin, T - k) - (s + 1) k/4. With T = k + (s + 1) k/4 + E this is a miss
//     when #{g_i < T} <= s and gmin >= (s + 1) k/4 + E (tried for s = 0..3; larger s add little beyond (1)).
bool mayHit(vec3 ro, vec3 rd) {
  // test (2) is tried for s = 0, 1, 2, 3 at once: thresholds T_s in a vec4, counts in a vec4
  vec4 q = 0.25 * uK * vec4(1.0, 2.0, 3.0, 4.0) + uMissEps;
  vec4 T = uK + q;
  vec4 cnt = vec4(0.0);
  float gmin = 1e9;
  for (int i = 0; i < BLOB_COUNT; i++) {
    vec4 b = uBlobs[i];
    vec3 oc = ro - b.xyz;
    float h = dot(oc, rd);
    float oo = dot(oc, oc);
    float d2 = h < 0.0 ? oo - h * h : oo;
    float g = sqrt(max(d2, 0.0)) - b.w;
    gmin = min(gmin, g);
    cnt += vec4(lessThan(vec4(g), T));
  }
  if (gmin > uInflate) return false;                        // (1)
  if (cnt.x <= 0.0) return false;                           // (2), s = 0
  if (gmin >= q.y && cnt.y <= 1.0) return false;           // s = 1
  if (gmin >= q.z && cnt.z <= 2.0) return false;           // s = 2
  if (gmin >= q.w && cnt.w <= 3.0) return false;           // s = 3
  return true;
}

void main() {
  vec3 ro = cameraPosition;
  vec3 rd = normalize(vWorld - ro);
  float t = 0.0;
  bool hit = false;
  vec3 p = ro;
  // rays that provably miss skip the march (and end as the march's misses do: discard)
  if (mayHit(ro, rd)) {
    for (int i = 0; i < ${METABALL_DEFAULTS.maxSteps}; i++) {
      p = ro + rd * t;
      float d = field(p);
      if (d < ${METABALL_DEFAULTS.hitEps.toFixed(4)}) { hit = true; break; }
      t += d;
      if (t > ${METABALL_DEFAULTS.maxDist.toFixed(1)}) break;
    }
  }
  // a miss is discarded; the shading is in the other branch (not after a bare discard) because SwiftShader keeps
  // running discarded lanes through straight-line code, while a branch no lane takes is skipped
  if (!hit) {
    discard;
  } else {
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
  }
}`;

/** sRGB → linear per channel, applied a second time to already-linear colours (QUIRK Q14). */
export function srgbToLinearChannel(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

function decodeTwice(c: THREE.Color): THREE.Vector3 {
  return new THREE.Vector3(srgbToLinearChannel(c.r), srgbToLinearChannel(c.g), srgbToLinearChannel(c.b));
}

/** Float margin (world units) of the miss test: far above float32 rounding of the field and of the ray test
 *  (≈ 1e-5 world at the scene's distances), small against the bounds themselves (k/4 ≈ 0.06 world). */
export const METABALL_MISS_MARGIN = 0.02;

/**
 * How far (world) beyond each blob's radius a ray may still hit: with n blobs the chained polynomial smin lies at
 * most (n − 1)·k/4 below the plain union min_i(|p − c_i| − r_i), and a hit needs field < hitEps. Rays that stay
 * outside every sphere of radius r_i + this bound provably end as misses (discarded), so the shader skips them
 * (test (1) of the shader's mayHit; its test (2) is finer).
 */
export function metaballMissBound(count: number, k: number): number {
  return Math.max(0, count - 1) * k * 0.25 + METABALL_DEFAULTS.hitEps + METABALL_MISS_MARGIN;
}

/** Quad height at 1 world in front of the camera: 2·tan(FOV/2) = 0.498656. */
export const METABALL_QUAD_HEIGHT = 2 * (CAM_Z - METABALL_DEFAULTS.quadZ) * Math.tan(((FOV_DEG / 2) * Math.PI) / 180);

export function metaballsObject(blobs: Blob3[], o: MetaballsOptions): MetaballsObject {
  const uBlobs = Array.from({ length: MAX_METABALLS }, () => new THREE.Vector4(0, 0, 0, 0));
  const uniforms = {
    uBlobs: { value: uBlobs },
    uCount: { value: 0 },
    uK: { value: 1e-6 },
    uInflate: { value: 0 },
    uMissEps: { value: METABALL_DEFAULTS.hitEps + METABALL_MISS_MARGIN },
    uAlbedo: { value: new THREE.Vector3(...METABALL_DEFAULTS.albedo) },
    uRim: { value: new THREE.Vector3(...METABALL_DEFAULTS.rim) },
    uSpecExp: { value: METABALL_DEFAULTS.specExp },
  };
  const material = new THREE.ShaderMaterial({ uniforms, vertexShader, fragmentShader, defines: { BLOB_COUNT: 1 } });
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
    if (n > 0 && material.defines.BLOB_COUNT !== n) {
      material.defines.BLOB_COUNT = n;
      material.needsUpdate = true;
    }
    // k = 0 divides by zero in smin: clamp to a tiny positive radius (hard union in practice).
    uniforms.uK.value = Math.max(1e-6, (Number.isFinite(smoothingPx) ? smoothingPx : 80) * o.p2w);
    uniforms.uInflate.value = metaballMissBound(n, uniforms.uK.value);
    mesh.visible = n > 0; // no blobs: nothing is drawn
  };
  mesh.setMaterial = (m: MetaballsMaterialInput) => {
    if (m.fill) uniforms.uAlbedo.value.copy(decodeTwice(m.fill));
    else uniforms.uAlbedo.value.set(...METABALL_DEFAULTS.albedo);
    if (m.emissive) uniforms.uRim.value.copy(decodeTwice(m.emissive));
    else uniforms.uRim.value.set(...METABALL_DEFAULTS.rim);
    uniforms.uSpecExp.value =
      m.roughness !== undefined && Number.isFinite(m.roughness) ? 100 - 84 * m.roughness : METABALL_DEFAULTS.specExp;
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
    const h = Math.min(1, Math.max(0, 0.5 + (0.5 * (d - a)) / k));
    d = d * (1 - h) + a * h - k * h * (1 - h);
  }
  return d;
}

/** The blobs as the shader sees them (world units, at most MAX_METABALLS) and its smoothing k. */
function worldBlobs(blobs: Blob3[], smoothingPx: number, p2w: number): { b: number[][]; k: number } {
  return {
    b: blobs.slice(0, MAX_METABALLS).map((x) => [x.x * p2w, x.y * p2w, x.z * p2w, x.r * p2w]),
    k: Math.max(1e-6, smoothingPx * p2w),
  };
}

/**
 * CPU twin of the shader's miss test (`mayHit`, tests (1) and (2)): false only for a ray (origin ro, unit
 * direction rd) that provably never comes within hitEps of the surface, so the march would end as a miss.
 */
export function metaballRayMayHit(
  ro: THREE.Vector3,
  rd: THREE.Vector3,
  blobs: Blob3[],
  smoothingPx: number,
  p2w: number,
): boolean {
  const { b, k } = worldBlobs(blobs, smoothingPx, p2w);
  const E = METABALL_DEFAULTS.hitEps + METABALL_MISS_MARGIN;
  const q = [1, 2, 3, 4].map((i) => 0.25 * k * i + E);
  const T = q.map((x) => k + x);
  const cnt = [0, 0, 0, 0];
  let gmin = 1e9;
  for (const [cx, cy, cz, r] of b) {
    const ox = ro.x - cx,
      oy = ro.y - cy,
      oz = ro.z - cz;
    const h = ox * rd.x + oy * rd.y + oz * rd.z;
    const oo = ox * ox + oy * oy + oz * oz;
    const g = Math.sqrt(Math.max(h < 0 ? oo - h * h : oo, 0)) - r;
    gmin = Math.min(gmin, g);
    for (let s = 0; s < 4; s++) if (g < T[s]) cnt[s]++;
  }
  if (gmin > metaballMissBound(b.length, k)) return false;
  if (cnt[0] <= 0) return false;
  for (let s = 1; s < 4; s++) if (gmin >= q[s] && cnt[s] <= s) return false;
  return true;
}

/** CPU twin of the shader's march (without the miss test): whether the ray hits, and where (t). */
export function metaballMarch(
  ro: THREE.Vector3,
  rd: THREE.Vector3,
  blobs: Blob3[],
  smoothingPx: number,
  p2w: number,
): { hit: boolean; t: number } {
  const p = new THREE.Vector3();
  let t = 0;
  for (let i = 0; i < METABALL_DEFAULTS.maxSteps; i++) {
    p.copy(rd).multiplyScalar(t).add(ro);
    const d = metaballField(p, blobs, smoothingPx, p2w);
    if (d < METABALL_DEFAULTS.hitEps) return { hit: true, t };
    t += d;
    if (t > METABALL_DEFAULTS.maxDist) break;
  }
  return { hit: false, t };
}
