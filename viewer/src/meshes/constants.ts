// Constants of viewer.md §0 that the geometry builders need.
export const FOV_DEG = 28;
export const CAM_Z = 6;
/** Height of the view at z = 0, in world units: 2·CAM_Z·tan(FOV/2) = 2.991936. */
export const VH = 2 * CAM_Z * Math.tan((FOV_DEG / 2) * Math.PI / 180);
export const GLYPH_AUTO_WORLD_PER_EM = 2.5;
export const GLYPH_AUTO_MAX_WIDTH_FRACTION = 0.82;
export const MAX_METABALLS = 24;

/** true when runner version `a` ≥ `b` ("0.0.13" > "0.0.3"); an unparsable runner counts as newest. */
export function runnerAtLeast(a: string, b: string): boolean {
  const pa = a.split('.').map((s) => Number.parseInt(s, 10));
  const pb = b.split('.').map((s) => Number.parseInt(s, 10));
  if (pa.some((n) => !Number.isFinite(n))) return true;
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0, y = pb[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}
