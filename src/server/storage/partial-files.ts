// The partial files a render writes next to its output (PARTIAL_SUFFIXES of the renderer contract): which output each
// belongs to, so the disk budget never evicts a rendering job's frames and retention never takes them for strays.
import { CHUNK_SEGMENT_RE, PARTIAL_SUFFIXES } from '../../render/renderer-port.js';

/** A render's partial file, not an output. */
export function isPartial(name: string): boolean {
  return CHUNK_SEGMENT_RE.test(name) || PARTIAL_SUFFIXES.some((s) => name.endsWith(s));
}

/** The output a file belongs to: itself, or the output a partial file is written for. */
export function ownerOf(name: string): string {
  const m = CHUNK_SEGMENT_RE.exec(name);
  if (m) return name.slice(0, m.index);
  const s = PARTIAL_SUFFIXES.find((x) => name.endsWith(x));
  return s ? name.slice(0, -s.length) : name;
}
