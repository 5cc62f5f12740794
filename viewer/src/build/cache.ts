// Per-job caches that live across seeks: geometries keyed by their defining arguments, and the list of
// materials created for the current frame (disposed only after the next frame has been drawn, so that
// three.js keeps its compiled programs instead of releasing and recompiling them).
import * as THREE from 'three';

export class GeometryCache {
  private map = new Map<string, { geo: THREE.BufferGeometry | null; frame: number }>();
  private frame = 0;
  /** geometries built since the last clear() (tests check that seeks reuse them) */
  created = 0;
  /** Bound on entries; least recently used ones that were not used by the current frame are released. */
  constructor(private readonly limit = 256) {}

  get<T extends THREE.BufferGeometry | null>(key: string, make: () => T): T {
    let e = this.map.get(key);
    if (!e) {
      const geo = make();
      this.created++;
      if (geo) {
        geo.computeBoundingSphere();
        geo.computeBoundingBox();
      }
      e = { geo, frame: this.frame };
      this.map.set(key, e);
    } else {
      // refresh LRU position
      this.map.delete(key);
      this.map.set(key, e);
    }
    e.frame = this.frame;
    return e.geo as T;
  }

  endFrame(): void {
    if (this.map.size > this.limit) {
      for (const [k, e] of this.map) {
        if (this.map.size <= this.limit) break;
        if (e.frame !== this.frame) {
          e.geo?.dispose();
          this.map.delete(k);
        }
      }
    }
    this.frame++;
  }

  get size(): number {
    return this.map.size;
  }

  /** Releases every geometry, or every one whose key `keep` does not accept. */
  clear(keep?: (key: string) => boolean): void {
    for (const [k, e] of this.map) {
      if (keep?.(k)) continue;
      e.geo?.dispose();
      this.map.delete(k);
    }
    this.created = 0;
  }
}
