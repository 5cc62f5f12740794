// Public entry of the export library (Node only): what POST /v1/mesh, POST /v1/vectorize and the CLI call.
// Pure functions of their input bytes; every refusal is an ExportError with a stable code.
export { svgToGlb, svgSolid, MESH_DEFAULTS, type MeshParams, type MeshLimits } from './mesh.js';
export { vectorizeImage, vectorizeOptions, type VectorizeParams, type VectorizeLimits } from './vectorize.js';
export { writeGlb, writeGlbWithStats, type GlbOptions, type GlbStats } from './glb.js';
export { rasterHeader, decodeRaster, type RasterHeader } from './raster.js';
export { ExportError, isExportError, type ExportErrorCode } from './errors.js';
export { EXPORT_LIMITS } from './limits.js';
