// Every limit of the contract (render-service-spec.txt "Limits" + service.md): the one module that owns them,
// imported by the server (validation) and the renderer (output size) alike.
export const LIMITS = {
  sourceMaxChars: 65536,
  bodyMaxBytes: 1024 * 1024,
  fps: { min: 1, max: 60, default: 30 },
  duration: { min: 0.1, max: 300 },
  width: { min: 16, max: 3840 },
  height: { min: 16, max: 2160 },
  at: { min: 0, default: 0 },
  /**
   * GIF (service.md "The other operations"): tighter than video because every frame is 8-bit paletted and
   * stored whole-ish; 480 wide by default, the height following the scene's aspect.
   */
  gif: {
    fps: { min: 1, max: 30, default: 15 },
    duration: { min: 0.1, max: 60 },
    width: { min: 16, max: 1920, default: 480 },
    height: { min: 16, max: 1920 },
  },
  /**
   * Mesh (service.md "POST /v1/mesh"): the SVG source is counted in UTF-8 bytes; depth, size and round are in mesh
   * units. The work of one mesh is bounded by the export library's vertex cap (src/export/limits.ts).
   */
  mesh: { sourceMaxBytes: 64 * 1024, defaults: { depth: 20, size: 100, round: 0 } },
  /**
   * Vectorize (service.md "POST /v1/vectorize"): an inline image is at most 12 MiB of base64 (9 MiB of image), so its
   * route takes bodies up to bodyMaxBytes; the parameter ranges bound the tracer's work (measured in
   * src/export/limits.ts, which uses these).
   */
  vectorize: {
    imageMaxBase64Chars: 12 * 1024 * 1024,
    bodyMaxBytes: 13 * 1024 * 1024,
    ranges: { strokeWidthMax: 1000, simplifyMax: 100, bridgeMax: 64, stitchMax: 1000, maxDimMax: 2048 },
  },
  /** Output size when the scene has no design frame. */
  defaultFrame: { width: 1920, height: 1080 },
  /**
   * Uploads: files per upload and bytes per file. A job's asset map names at most `maxPerJob` in-source paths (400
   * invalid_assets past it): admission looks each distinct key up, and a map of ~20,000 paths fit in a 1 MiB body
   * (issue 32: 200 paths naming one 25 MiB asset took 32.9 s to admit when each was read and hashed).
   */
  assets: { maxFiles: 10, maxFileBytes: 25 * 1024 * 1024, maxPerJob: 64 },
  /**
   * Decoded size of an image (upload: 400 image_too_large; a job: ASS002), judged from its header before anything
   * decodes it: 40 megapixels is 160 MB of RGBA in the page (a 20000x20000 PNG of 1.1 MB took Chromium to 4.3 GB);
   * 16384 is the largest WebGL texture side we can count on.
   */
  image: { pixels: 40_000_000, side: 16384 },
  /**
   * Work budget of one clip's evaluation in Node (docs/durability.md): value nodes evaluated over all its frames.
   * About 0.5 us per node here (evaluate + JSON), so the budget is under two minutes of one core, well inside the
   * 15-minute job limit. A scene that reads no time signal is evaluated once, whatever its length.
   */
  evaluationNodesPerJob: 200_000_000,
  /**
   * Per-frame render budget in the page: drawing one value (build, draw, read back) longer than this ends the job
   * (code frame_budget). The shape and glyph limits (EVL009..EVL012) keep a frame to a few seconds; this is the
   * backstop for what they do not foresee.
   */
  frameDrawMs: 60_000,
  /**
   * A video longer than this many frames is rendered as consecutive chunks of exactly this many frames (the last
   * shorter), each a closed segment, joined without re-encoding (docs/cluster.md). A constant, not a setting: the
   * output's bytes depend on where the chunks cut, so they must not depend on the deployment. 60 frames keeps a 2 s
   * clip at 30 fps one chunk (its bytes unchanged).
   */
  videoChunkFrames: 60,
  /** Output cache lifetime (seconds) for GET /v1/outputs/{filename}. */
  outputCacheSeconds: 86400,
  /** Recommended polling interval the docs give clients. */
  pollIntervalMs: 2000,
} as const;

export const OUTPUT_FILENAME_RE = /^[A-Za-z0-9._-]+$/;
export const ASSET_KEY_RE = /^asset_[0-9a-f]{32}$/;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
