// Names of the standard library (stdlib.md §6 and the symbols of language.md §11). Every one of
// them is visible without an import; the checker treats them as declared.

export const STDLIB_NAMES: ReadonlySet<string> = new Set([
  // std.shapes
  'rect',
  'circle',
  'sphere',
  'path',
  'image',
  'size',
  'ellipse',
  // std.text (used as text.glyph)
  'text',
  // std.mesh3d
  'extrude',
  'svg',
  'vectorize',
  'metaballs',
  'blob',
  'gradient',
  // std.lighting
  'ambient',
  'directional',
  'point',
  'spotlight',
  'bloom',
  // std.scene3d
  'render3d',
  'camera',
  'perspective',
  'orthographic',
  // std.anim
  'wave',
  'bounce',
  'on_event',
  'noise',
  'easing',
  'forever',
  // std.math
  'vec2',
  'vec3',
  'dot',
  'cross',
  'length',
  'normalize',
  'lerp',
  // std.filter (documented)
  'blur',
  'color_grade',
  // std.transport / std.audio (documented)
  'playhead',
  'tempo',
  'fft',
  'envelope_follow',
  'beat',
  'onset',
  // symbols
  'cover',
  'contain',
  'bottom',
  'top',
  'left',
  'right',
  'center',
  'equirectangular',
  // module roots
  'std',
]);
