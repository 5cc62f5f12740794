// Constants of viewer.md §0 that the geometry builders need.
export const FOV_DEG = 28;
export const CAM_Z = 6;
/** Height of the view at z = 0, in world units: 2·CAM_Z·tan(FOV/2) = 2.991936. */
export const VH = 2 * CAM_Z * Math.tan(((FOV_DEG / 2) * Math.PI) / 180);
export const GLYPH_AUTO_WORLD_PER_EM = 2.5;
export const GLYPH_AUTO_MAX_WIDTH_FRACTION = 0.82;
export const MAX_METABALLS = 24;

// Runner comparisons come from the one list of versions in the language package.
export { atLeast as runnerAtLeast, newestRunner } from '../../../src/lang/runners.js';
