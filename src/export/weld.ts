// Share vertices that are bit-for-bit equal (same float32 position AND normal): a flat-shaded, non-indexed
// three.js solid repeats each cap vertex for every triangle that touches it, so an indexed GLB is about half
// the size. Nothing moves: a vertex is shared only with its exact twin, so the surface and its shading are
// unchanged. First-seen order, so the same input always gives the same bytes.

export interface Welded {
  positions: Float32Array;
  normals: Float32Array;
  indices: Uint32Array;
  vertexCount: number;
}

/** Mix 6 words (position + normal bits) into a 32-bit hash. */
function hash6(w: Uint32Array, o: number): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < 6; k++) {
    h = Math.imul(h ^ w[o + k], 0x01000193);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

export function weld(positions: Float32Array, normals: Float32Array): Welded {
  const n = positions.length / 3;
  // the 6 words of each input vertex, side by side
  const words = new Uint32Array(n * 6);
  const pw = new Uint32Array(positions.buffer, positions.byteOffset, n * 3);
  const nw = new Uint32Array(normals.buffer, normals.byteOffset, n * 3);
  for (let i = 0; i < n; i++) {
    words[i * 6] = pw[i * 3];
    words[i * 6 + 1] = pw[i * 3 + 1];
    words[i * 6 + 2] = pw[i * 3 + 2];
    words[i * 6 + 3] = nw[i * 3];
    words[i * 6 + 4] = nw[i * 3 + 1];
    words[i * 6 + 5] = nw[i * 3 + 2];
  }
  // open addressing: table of (first input vertex + 1) per slot, 0 = empty
  let size = 1;
  while (size < n * 2) size <<= 1;
  const table = new Uint32Array(size);
  const mask = size - 1;
  const firstOf = new Uint32Array(n); // output vertex → its first input vertex
  const indices = new Uint32Array(n);
  let count = 0;
  const outId = new Uint32Array(n); // input vertex that opened an output vertex → that output id
  for (let i = 0; i < n; i++) {
    let s = hash6(words, i * 6) & mask;
    for (;;) {
      const slot = table[s];
      if (slot === 0) {
        table[s] = i + 1;
        firstOf[count] = i;
        outId[i] = count;
        indices[i] = count++;
        break;
      }
      const j = slot - 1,
        a = i * 6,
        b = j * 6;
      if (
        words[a] === words[b] &&
        words[a + 1] === words[b + 1] &&
        words[a + 2] === words[b + 2] &&
        words[a + 3] === words[b + 3] &&
        words[a + 4] === words[b + 4] &&
        words[a + 5] === words[b + 5]
      ) {
        indices[i] = outId[j];
        break;
      }
      s = (s + 1) & mask;
    }
  }
  const P = new Float32Array(count * 3),
    N = new Float32Array(count * 3);
  for (let v = 0; v < count; v++) {
    const i = firstOf[v];
    P[v * 3] = positions[i * 3];
    P[v * 3 + 1] = positions[i * 3 + 1];
    P[v * 3 + 2] = positions[i * 3 + 2];
    N[v * 3] = normals[i * 3];
    N[v * 3 + 1] = normals[i * 3 + 1];
    N[v * 3 + 2] = normals[i * 3 + 2];
  }
  return { positions: P, normals: N, indices, vertexCount: count };
}
