// Public entry of the export library (Node only): what POST /v1/mesh, POST /v1/vectorize and the CLI call.
// Pure functions of their input bytes; every refusal is an ExportError with a stable code.
export { svgToGlb, svgSolid, MESH_DEFAULTS, type MeshParams, type MeshLimits } from './mesh';
export { vectorizeImage, vectorizeOptions, type VectorizeParams, type VectorizeLimits } from './vectorize';
export { writeGlb, writeGlbWithStats, type GlbOptions, type GlbStats } from './glb';
export { rasterHeader, decodeRaster, type RasterHeader } from './raster';
export { ExportError, isExportError, type ExportErrorCode } from './errors';
export { EXPORT_LIMITS } from './limits';
