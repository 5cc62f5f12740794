// A three.js geometry (or every mesh under an Object3D, merged) as a flat list of triangles in float32:
// the exact numbers a GLB will hold, each vertex with a unit normal. What a glTF validator rejects is
// settled here, once: a triangle of zero area (after rounding to float32) has no normal and draws nothing,
// so it is dropped; a missing or zero normal is replaced by the face normal.
import * as THREE from 'three';

export interface TriangleSoup {
  /** xyz per vertex, three vertices per triangle (counter-clockwise seen from the front). */
  positions: Float32Array;
  /** unit normal per vertex. */
  normals: Float32Array;
}

type Input = THREE.BufferGeometry | THREE.Object3D;

/** Geometries with the matrix that places each in the output, in traversal order (deterministic). */
function sources(input: Input): { geometry: THREE.BufferGeometry; matrix: THREE.Matrix4 | null }[] {
  if ((input as THREE.BufferGeometry).isBufferGeometry)
    return [{ geometry: input as THREE.BufferGeometry, matrix: null }];
  const root = input as THREE.Object3D;
  root.updateWorldMatrix(true, true);
  const out: { geometry: THREE.BufferGeometry; matrix: THREE.Matrix4 | null }[] = [];
  root.traverse((o) => {
    const mesh = o as THREE.Mesh;
    if (mesh.isMesh && mesh.geometry?.getAttribute('position'))
      out.push({ geometry: mesh.geometry, matrix: mesh.matrixWorld });
  });
  return out;
}

/** Round to float32 and fold −0 into +0 (so equal points weld and min/max read "0"). */
const f32 = (v: number) => {
  const r = Math.fround(v);
  return r === 0 ? 0 : r;
};

export function triangleSoup(input: Input): TriangleSoup {
  const pos: number[] = [];
  const nrm: number[] = [];
  const p = [new THREE.Vector3(), new THREE.Vector3(), new THREE.Vector3()];
  const n = [new THREE.Vector3(), new THREE.Vector3(), new THREE.Vector3()];
  const e1 = new THREE.Vector3(),
    e2 = new THREE.Vector3(),
    face = new THREE.Vector3();
  const normalMatrix = new THREE.Matrix3();
  for (const { geometry, matrix } of sources(input)) {
    const P = geometry.getAttribute('position');
    const N = geometry.getAttribute('normal') as THREE.BufferAttribute | THREE.InterleavedBufferAttribute | undefined;
    const idx = geometry.getIndex();
    const count = idx ? idx.count : P.count;
    if (matrix) normalMatrix.getNormalMatrix(matrix);
    const at = (i: number) => (idx ? idx.getX(i) : i);
    for (let t = 0; t + 2 < count; t += 3) {
      for (let k = 0; k < 3; k++) {
        const v = at(t + k);
        p[k].fromBufferAttribute(P, v);
        if (matrix) p[k].applyMatrix4(matrix);
        p[k].set(f32(p[k].x), f32(p[k].y), f32(p[k].z));
        if (N) {
          n[k].fromBufferAttribute(N, v);
          if (matrix) n[k].applyMatrix3(normalMatrix);
        } else n[k].set(0, 0, 0);
      }
      face.crossVectors(e1.subVectors(p[1], p[0]), e2.subVectors(p[2], p[0]));
      const area2 = face.length();
      if (!(area2 > 0) || !Number.isFinite(area2)) continue; // zero area (or NaN): nothing to draw
      face.divideScalar(area2);
      for (let k = 0; k < 3; k++) {
        const len = n[k].length();
        const unit = len > 1e-12 && Number.isFinite(len) ? n[k].divideScalar(len) : n[k].copy(face);
        pos.push(p[k].x, p[k].y, p[k].z);
        nrm.push(f32(unit.x), f32(unit.y), f32(unit.z));
      }
    }
  }
  return { positions: Float32Array.from(pos), normals: Float32Array.from(nrm) };
}
