// Binary glTF 2.0 (.glb) from a three.js BufferGeometry, or from every mesh under a Group (merged into one).
//
// Why our own writer: three's GLTFExporter (r184) reads its output back through the browser's FileReader,
// which Node 20 does not have ("FileReader is not defined" with { binary: true }); a polyfill would be more
// code than this file. We only ever need one mesh: POSITION + NORMAL + indices, one default material.
//
// Layout (glTF 2.0 §4.4 "GLB file format"): 12-byte header, a JSON chunk padded with spaces and a BIN chunk
// padded with zeros, both to 4 bytes. BIN holds positions, normals, then indices, each view 4-byte aligned.
// Deterministic: no dates, no random ids, fixed key order, so the same input gives the same bytes.
import type * as THREE from 'three';
import { ExportError } from './errors.js';
import { triangleSoup } from './triangles.js';
import { weld } from './weld.js';
import { CODE } from '../contract/error-codes.js';

export interface GlbOptions {
  /** Name of the node and the mesh (default "mesh"). */
  name?: string;
}

/** What a GLB holds, for callers that log or test it. */
export interface GlbStats {
  vertexCount: number;
  triangleCount: number;
  indexType: 'UNSIGNED_SHORT' | 'UNSIGNED_INT';
}

const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a; // "JSON"
const CHUNK_BIN = 0x004e4942; // "BIN\0"
const FLOAT = 5126,
  UNSIGNED_SHORT = 5123,
  UNSIGNED_INT = 5125;
const ARRAY_BUFFER = 34962,
  ELEMENT_ARRAY_BUFFER = 34963;
const TRIANGLES = 4;

/** White, slightly metallic, double-sided: the material the viewer's own mesh export gives (viewer.md §2.5). */
const DEFAULT_MATERIAL = {
  name: 'default',
  pbrMetallicRoughness: { baseColorFactor: [1, 1, 1, 1], metallicFactor: 0.2, roughnessFactor: 0.5 },
  doubleSided: true,
};

const pad4 = (n: number) => (n + 3) & ~3;

function bounds(p: Float32Array): { min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity],
    max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      const v = p[i + k];
      if (v < min[k]) min[k] = v;
      if (v > max[k]) max[k] = v;
    }
  }
  return { min, max }; // float32 values read back as doubles: exactly what the validator recomputes
}

/** Assemble header + JSON chunk + BIN chunk. */
function encodeGlb(json: object, bin: Uint8Array): Buffer {
  const jsonBytes = Buffer.from(JSON.stringify(json), 'utf8');
  const jsonLen = pad4(jsonBytes.length),
    binLen = pad4(bin.length);
  const total = 12 + 8 + jsonLen + 8 + binLen;
  const out = Buffer.alloc(total); // zero-filled: the BIN padding
  out.writeUInt32LE(GLB_MAGIC, 0);
  out.writeUInt32LE(2, 4);
  out.writeUInt32LE(total, 8);
  out.writeUInt32LE(jsonLen, 12);
  out.writeUInt32LE(CHUNK_JSON, 16);
  jsonBytes.copy(out, 20);
  out.fill(0x20, 20 + jsonBytes.length, 20 + jsonLen); // JSON padding must be spaces
  const b = 20 + jsonLen;
  out.writeUInt32LE(binLen, b);
  out.writeUInt32LE(CHUNK_BIN, b + 4);
  out.set(bin, b + 8);
  return out;
}

/** The GLB bytes and what they hold. Throws ExportError `empty_mesh` when there is no triangle to write. */
export function writeGlbWithStats(
  input: THREE.BufferGeometry | THREE.Object3D,
  o: GlbOptions = {},
): { glb: Buffer; stats: GlbStats } {
  const soup = triangleSoup(input);
  if (soup.positions.length === 0)
    throw new ExportError(CODE.empty_mesh, 'nothing to write: the geometry has no triangle of non-zero area');
  const w = weld(soup.positions, soup.normals);
  // glTF forbids the largest value of the index type (primitive restart), so 16-bit indices reach 65 534.
  const short = w.vertexCount <= 65535;
  const indexBytes = short ? Uint16Array.from(w.indices) : w.indices;
  const posBytes = w.positions.byteLength,
    nrmBytes = w.normals.byteLength,
    idxBytes = indexBytes.byteLength;
  const bin = new Uint8Array(pad4(posBytes + nrmBytes + idxBytes));
  bin.set(new Uint8Array(w.positions.buffer, w.positions.byteOffset, posBytes), 0);
  bin.set(new Uint8Array(w.normals.buffer, w.normals.byteOffset, nrmBytes), posBytes);
  bin.set(new Uint8Array(indexBytes.buffer, indexBytes.byteOffset, idxBytes), posBytes + nrmBytes);
  const name = o.name ?? 'mesh';
  const { min, max } = bounds(w.positions);
  const json = {
    asset: { version: '2.0', generator: 'cmrender' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ name, mesh: 0 }],
    meshes: [
      { name, primitives: [{ attributes: { POSITION: 0, NORMAL: 1 }, indices: 2, material: 0, mode: TRIANGLES }] },
    ],
    materials: [DEFAULT_MATERIAL],
    accessors: [
      { bufferView: 0, componentType: FLOAT, count: w.vertexCount, type: 'VEC3', min, max },
      { bufferView: 1, componentType: FLOAT, count: w.vertexCount, type: 'VEC3' },
      { bufferView: 2, componentType: short ? UNSIGNED_SHORT : UNSIGNED_INT, count: w.indices.length, type: 'SCALAR' },
    ],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: posBytes, target: ARRAY_BUFFER },
      { buffer: 0, byteOffset: posBytes, byteLength: nrmBytes, target: ARRAY_BUFFER },
      { buffer: 0, byteOffset: posBytes + nrmBytes, byteLength: idxBytes, target: ELEMENT_ARRAY_BUFFER },
    ],
    buffers: [{ byteLength: bin.length }],
  };
  return {
    glb: encodeGlb(json, bin),
    stats: {
      vertexCount: w.vertexCount,
      triangleCount: w.indices.length / 3,
      indexType: short ? 'UNSIGNED_SHORT' : 'UNSIGNED_INT',
    },
  };
}

/** Binary glTF 2.0 of a geometry or of all meshes under an Object3D (merged, world transforms applied). */
export function writeGlb(input: THREE.BufferGeometry | THREE.Object3D, o: GlbOptions = {}): Buffer {
  return writeGlbWithStats(input, o).glb;
}
