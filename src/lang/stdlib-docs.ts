// THE table of the standard library as a user sees it (stdlib.md §6, docs/compatibility.md): every function,
// postfix method and symbol with its module, parameters (name, type, default, unit), result type, a line or two of
// help and an example. The editor's completion and hover, the generated language reference and the agent tools read
// it; test/lang/stdlib-docs.test.ts holds it to what the language really defines (STDLIB_NAMES, the easings, the
// time signals and what the drawer builds), so a name cannot be callable and undocumented, or the reverse.
// No Node-only APIs: the editor bundles this module.

import { functionSince } from './runners.js';

export type StdKind = 'function' | 'method' | 'symbol';

export interface StdParam {
  name: string;
  /** the type a user writes or reads: Length, Number, Color, Angle, Duration, Vec3, Image, Solid, ... */
  type: string;
  /** the default as source text; absent when the argument is required or has no effect when missing */
  default?: string;
  /** the unit the value is read in (`px`, `s`, `deg`), where one applies */
  unit?: string;
  /** `named` (only the named form is read) or the positional index it may also be given at */
  position?: 'named' | number;
}

export interface StdEntry {
  /** the name as written: `rect`, `text.glyph`, `easing.out_cubic`; a method without its receiver (`material`) */
  name: string;
  /** cmotion's documentation module (`std.shapes`); names need no import (stdlib.md §6.0) */
  module: string;
  kind: StdKind;
  /** for a method: what it is called on */
  receiver?: string;
  params: StdParam[];
  result: string;
  help: string;
  example?: string;
  /** false: documented by cmotion but drawn by nothing (an inert node), kept so sources using it check clean */
  implemented: boolean;
}

const px = (name: string, def?: string, position: StdParam['position'] = 'named'): StdParam => ({
  name,
  type: 'Length',
  ...(def !== undefined ? { default: def } : {}),
  unit: 'px',
  position,
});
const num = (name: string, def?: string, position: StdParam['position'] = 'named'): StdParam => ({
  name,
  type: 'Number',
  ...(def !== undefined ? { default: def } : {}),
  position,
});
const color = (name: string, def = '#ffffff'): StdParam => ({ name, type: 'Color', default: def, position: 'named' });
const secs = (name: string, def?: string, position: StdParam['position'] = 'named'): StdParam => ({
  name,
  type: 'Duration',
  ...(def !== undefined ? { default: def } : {}),
  unit: 's',
  position,
});
const angle = (name: string): StdParam => ({ name, type: 'Angle', default: '0', unit: 'rad', position: 'named' });
const lightColor = color('color');

type Init = Omit<StdEntry, 'implemented' | 'params' | 'kind'> &
  Partial<Pick<StdEntry, 'implemented' | 'params' | 'kind'>>;
const fn = (e: Init): StdEntry => ({ kind: 'function', params: [], implemented: true, ...e });
const method = (e: Init): StdEntry => ({ kind: 'method', params: [], implemented: true, ...e });
const symbol = (name: string, module: string, result: string, help: string, implemented = true): StdEntry => ({
  name,
  module,
  kind: 'symbol',
  params: [],
  result,
  help,
  implemented,
});
const inert = (name: string, module: string, help: string, params: StdParam[] = []): StdEntry =>
  fn({ name, module, params, result: 'Node', help, implemented: false });

const EASING_HELP: Record<string, string> = {
  linear: 'constant speed',
  in_quad: 'starts slow, speeds up (f²)',
  out_quad: 'starts fast, slows down',
  in_out_quad: 'slow, fast, slow (quadratic)',
  in_cubic: 'starts slow, speeds up (f³)',
  out_cubic: 'starts fast, slows down (cubic)',
  in_out_cubic: 'slow, fast, slow (cubic)',
};

export const STDLIB: readonly StdEntry[] = [
  // std.shapes
  fn({
    name: 'rect',
    module: 'std.shapes',
    params: [px('width', '0px'), px('height', '0px'), color('fill')],
    result: 'Layer',
    help: 'A flat rectangle layer. As the first layer of the top-level compose it is the background and sets the frame aspect (width / height).',
    example: 'rect(width: 1920px, height: 1080px, fill: #102030)',
  }),
  fn({
    name: 'circle',
    module: 'std.shapes',
    params: [px('radius', '0px'), color('fill')],
    result: 'Layer',
    help: 'A flat disc layer.',
    example: 'circle(radius: 120px, fill: #ff8800)',
  }),
  fn({
    name: 'sphere',
    module: 'std.shapes',
    params: [px('r', '50px', 0)],
    result: 'Solid',
    help: 'A 3D sphere of radius r (also `radius:`), white until `.material(...)`. Draw it inside render3d.',
    example: 'sphere(r: 120px).material(fill: #3070ff)',
  }),
  fn({
    name: 'path',
    module: 'std.shapes',
    params: [{ name: 'points', type: 'Array<Vec2>', unit: 'px', position: 0 }],
    result: 'Outline',
    help: 'A closed polygon outline (at least 3 vec2 points, y up); only meaningful as the shape of extrude.',
    example: 'extrude(path(points: [vec2(0, 0), vec2(200, 0), vec2(100, 160)]), depth: 40px)',
  }),
  fn({
    name: 'image',
    module: 'std.shapes',
    params: [{ name: 'path', type: 'String', position: 0 }],
    result: 'Image',
    help: 'An image by path (a bundled /img/... or an uploaded asset): the first compose layer (background, with .fit) or a material texture (with .as_texture).',
    example: 'image("/img/starry_night.jpg").fit(cover)',
  }),
  method({
    name: 'fit',
    module: 'std.shapes',
    receiver: 'Image',
    params: [{ name: 'mode', type: 'Symbol', position: 0 }],
    result: 'Image',
    help: 'The image as a background layer; the mode (cover, contain) is not read: a background always covers.',
    example: 'image("/img/starry_night.jpg").fit(cover)',
  }),
  method({
    name: 'as_texture',
    module: 'std.shapes',
    receiver: 'Image',
    params: [{ name: 'projection', type: 'Symbol', position: 'named' }],
    result: 'Image',
    help: 'The image as a texture for `.material(fill: ...)`; sphere UVs are already equirectangular.',
    example: 'sphere(r: 200px).material(fill: image("/img/earth_4k.jpg").as_texture(projection: equirectangular))',
  }),
  fn({
    name: 'size',
    module: 'std.shapes',
    params: [px('w', undefined, 0), px('h', undefined, 1)],
    result: 'Size',
    help: 'An inert width and height, read by nothing; used as a scene parameter default in examples.',
    example: 'scene s(size: Size = size(1920px, 1080px)) -> Frame { ... }',
    implemented: false,
  }),
  inert('ellipse', 'std.shapes', 'Documented by cmotion, not drawn: use circle(...) or scale a sphere.'),
  symbol('cover', 'std.shapes', 'Symbol', 'A fit mode for `.fit(...)`.'),
  symbol('contain', 'std.shapes', 'Symbol', 'A fit mode for `.fit(...)` (not read: backgrounds always cover).'),
  symbol('equirectangular', 'std.shapes', 'Symbol', 'A texture projection for `.as_texture(projection: ...)`.'),

  // std.text
  fn({
    name: 'text.glyph',
    module: 'std.text',
    params: [
      { name: 'text', type: 'String', position: 0 },
      { name: 'font', type: 'String', position: 'named' },
      px('size'),
    ],
    result: 'Outline',
    help: 'A run of glyph outlines (DM Sans Bold; `font` is ignored); drawn only as the shape of extrude. Without size it shrinks to fit 82 % of the frame width.',
    example: 'extrude(text.glyph("Hello", size: 200px), depth: 40px)',
  }),

  // std.mesh3d
  fn({
    name: 'extrude',
    module: 'std.mesh3d',
    params: [{ name: 'shape', type: 'Outline', position: 0 }, px('depth', '16px')],
    result: 'Solid',
    help: 'A solid from a path(...) or text.glyph(...) outline, bevelled, centred on its bounding box.',
    example: 'extrude(text.glyph("Hi"), depth: 40px)',
  }),
  fn({
    name: 'svg',
    module: 'std.mesh3d',
    params: [
      { name: 'source', type: 'String', position: 0 },
      px('depth', '16px'),
      px('size', '400px'),
      px('round', '0px'),
    ],
    result: 'Solid',
    help: 'A solid from an SVG document (filled shapes and stroked paths), scaled to `size` tall; `round` bevels the edges.',
    example: 'svg("""<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>""", depth: 30px)',
  }),
  fn({
    name: 'vectorize',
    module: 'std.mesh3d',
    params: [
      { name: 'source', type: 'Image', position: 0 },
      num('stroke_width', '6'),
      num('simplify', '1.5'),
      num('bridge', '2'),
      num('threshold', '0.5'),
      num('stitch', '6'),
      px('depth', '16px'),
      px('size', '400px'),
      px('round', '0px'),
    ],
    result: 'Solid',
    help: 'Traces a raster line drawing to a centreline SVG and extrudes it like svg(...); stroke_width, simplify and stitch are pixels of the image.',
    example: 'vectorize(image("/img/handdrawn.jpg"), depth: 20px)',
  }),
  fn({
    name: 'metaballs',
    module: 'std.mesh3d',
    params: [{ name: 'blobs', type: 'Array<Blob>', position: 0 }, px('smoothing', '80px')],
    result: 'Solid',
    help: 'Raymarched blobs that melt together (at most 24 per body); smoothing is the smooth-union radius.',
    example: 'metaballs([blob(at: vec3(-80, 0, 0)), blob(at: vec3(80, 0, 0))], smoothing: 60px)',
  }),
  fn({
    name: 'blob',
    module: 'std.mesh3d',
    params: [
      { name: 'at', type: 'Vec3', default: 'vec3(0, 0, 0)', unit: 'px', position: 'named' },
      px('radius', '100px'),
    ],
    result: 'Blob',
    help: 'One blob of metaballs(...).',
    example: 'blob(at: vec3(0, 40, 0), radius: 90px)',
  }),
  fn({
    name: 'gradient',
    module: 'std.mesh3d',
    params: [num('top', '1'), num('bottom', '1')],
    result: 'Gradient',
    help: "A vertical emissive ramp from `bottom` at the solid's lowest point to `top` at its highest; only as emissive_intensity.",
    example: '.material(emissive: #ff4400, emissive_intensity: gradient(top: 2, bottom: 0))',
  }),
  method({
    name: 'material',
    module: 'std.mesh3d',
    receiver: 'Solid',
    params: [
      { name: 'fill', type: 'Color | Image', default: '#ffffff', position: 'named' },
      num('metalness', '0'),
      num('roughness', '1'),
      color('emissive'),
      { name: 'emissive_intensity', type: 'Number | Gradient', default: '0', position: 'named' },
      num('opacity', '1'),
    ],
    result: 'Solid',
    help: 'Replaces the material of every mesh of the solid: colour or texture, metalness, roughness, glow, opacity (< 1 is translucent).',
    example: 'sphere(r: 100px).material(fill: #ff0000, roughness: 0.4)',
  }),
  method({
    name: 'rotate',
    module: 'std.mesh3d',
    receiver: 'Solid',
    params: [angle('x'), angle('y'), angle('z')],
    result: 'Solid',
    help: 'Sets the rotation (XYZ order); `deg` is converted, other units and plain numbers are radians. An outer rotate replaces an inner one.',
    example: 'extrude(text.glyph("A"), depth: 40px).rotate(y: 30deg)',
  }),
  method({
    name: 'scale',
    module: 'std.mesh3d',
    receiver: 'Solid',
    params: [num('s', '1', 0)],
    result: 'Solid',
    help: 'Sets a uniform scale (positional only).',
    example: 'sphere(r: 50px).scale(2)',
  }),
  method({
    name: 'translate',
    module: 'std.mesh3d',
    receiver: 'Solid',
    params: [px('x', '0'), px('y', '0'), px('z', '0')],
    result: 'Solid',
    help: 'Moves the solid: px are frame pixels, other units world units (y up, z toward the camera). Adds to earlier moves.',
    example: 'sphere(r: 50px).translate(x: 200px, y: -100px)',
  }),
  method({
    name: 'pivot',
    module: 'std.mesh3d',
    receiver: 'Solid',
    params: [{ name: 'anchor', type: 'Symbol', position: 0 }],
    result: 'Solid',
    help: 'Shifts the solid so the named side (bottom, top, left, right) sits at the origin, so later scale and squash act about it.',
    example: 'sphere(r: 100px).pivot(bottom).squash(factor: 0.3)',
  }),
  method({
    name: 'squash',
    module: 'std.mesh3d',
    receiver: 'Solid',
    params: [num('factor', '0', 0)],
    result: 'Solid',
    help: 'Squash and stretch: y scale max(0.02, 1 − factor), x and z stretched to keep the volume.',
    example: 'sphere(r: 100px).pivot(bottom).squash(factor: 0.3)',
  }),
  symbol('bottom', 'std.mesh3d', 'Symbol', 'An anchor for `.pivot(...)`; also `gradient(bottom:)`.'),
  symbol('top', 'std.mesh3d', 'Symbol', 'An anchor for `.pivot(...)`.'),
  symbol('left', 'std.mesh3d', 'Symbol', 'An anchor for `.pivot(...)`.'),
  symbol('right', 'std.mesh3d', 'Symbol', 'An anchor for `.pivot(...)`.'),
  symbol('center', 'std.mesh3d', 'Symbol', 'An anchor for `.pivot(...)`: no shift.'),

  // std.lighting
  fn({
    name: 'ambient',
    module: 'std.lighting',
    params: [num('intensity', '0.3', 0), lightColor],
    result: 'Light',
    help: 'Uniform light from everywhere (`tint:` is the same as `color:`).',
    example: 'ambient(0.35)',
  }),
  fn({
    name: 'directional',
    module: 'std.lighting',
    params: [
      { name: 'from', type: 'Vec3', default: 'vec3(0, 1, 0)', position: 'named' },
      num('intensity', '1'),
      lightColor,
    ],
    result: 'Light',
    help: 'Parallel light shining from `from` toward the origin.',
    example: 'directional(from: vec3(1, 2, 3), intensity: 1.2)',
  }),
  fn({
    name: 'point',
    module: 'std.lighting',
    params: [
      { name: 'at', type: 'Vec3', default: 'vec3(0, 0, 0)', unit: 'px', position: 'named' },
      num('intensity', '1'),
      px('range', '600px'),
      lightColor,
    ],
    result: 'Light',
    help: 'A light at a point (also `position:`) fading out by `range` px.',
    example: 'point(at: vec3(0, 300, 400), intensity: 2)',
  }),
  fn({
    name: 'spotlight',
    module: 'std.lighting',
    params: [
      { name: 'at', type: 'Vec3', default: 'vec3(0, 0, 0)', unit: 'px', position: 'named' },
      num('intensity', '1'),
      px('range', '600px'),
      lightColor,
    ],
    result: 'Light',
    help: 'The same as point(...) (not a cone).',
    example: 'spotlight(at: vec3(0, 500, 300))',
  }),
  fn({
    name: 'bloom',
    module: 'std.lighting',
    params: [num('strength', '0.8'), num('radius', '0.4'), num('threshold', '0.6')],
    result: 'Effect',
    help: 'Not a light: in `lights:` it switches the frame to a bloom post-process (luminance above threshold glows).',
    example: 'render3d(s, lights: [ambient(0.3), bloom(strength: 1.2)])',
  }),

  // std.scene3d
  fn({
    name: 'render3d',
    module: 'std.scene3d',
    params: [
      { name: 'scene', type: 'Solid', position: 0 },
      { name: 'lights', type: 'Array<Light>', default: '[]', position: 'named' },
      { name: 'camera', type: 'Camera', position: 'named' },
    ],
    result: 'Layer',
    help: 'Projects a solid (or a nested `compose [...]` of solids) into the frame as a layer, lit by `lights`.',
    example: 'render3d(sphere(r: 200px), lights: [ambient(0.4), directional(from: vec3(1, 1, 1))])',
  }),
  fn({
    name: 'camera',
    module: 'std.scene3d',
    params: [
      { name: 'fov', type: 'Angle', default: '28deg', unit: 'deg', position: 'named' },
      px('distance'),
      num('near', '1'),
      num('far', '10000'),
    ],
    result: 'Camera',
    help: "The camera of render3d(camera: ...); its defaults are the reference's fixed camera framing the frame height.",
    example: 'render3d(s, camera: camera(fov: 40deg))',
  }),
  inert('perspective', 'std.scene3d', 'Documented by cmotion, not implemented: use camera(fov: ...).'),
  inert('orthographic', 'std.scene3d', 'Documented by cmotion, not implemented.'),

  // std.anim
  fn({
    name: 'wave',
    module: 'std.anim',
    params: [{ name: 'amplitude', type: 'Number', position: 'named' }, secs('period')],
    result: 'Number',
    help: "A sine from phase 0: amplitude · sin(2πt / period), in amplitude's unit. Both arguments named and required.",
    example: 'sphere(r: 80px).translate(y: wave(amplitude: 100px, period: 2s))',
  }),
  fn({
    name: 'bounce',
    module: 'std.anim',
    params: [
      { name: 'height', type: 'Length', unit: 'px', position: 'named' },
      secs('period'),
      { name: 'floor', type: 'Length', unit: 'px', position: 'named' },
    ],
    result: '{position, impacts}',
    help: 'A bouncing ball: `.position` (floor + parabolic arc) and `.impacts` (the times it lands, for on_event). All named, required.',
    example: 'let b = bounce(height: 600px, period: 1.2s, floor: -400px);',
  }),
  fn({
    name: 'on_event',
    module: 'std.anim',
    params: [{ name: 'events', type: 'Array<Duration>', position: 0 }, secs('decay'), num('peak')],
    result: 'Number',
    help: 'peak at each event time, decaying exponentially (time constant `decay`) until the next.',
    example: 'on_event([0.5s, 1.5s], decay: 0.18s, peak: 0.35)',
  }),
  fn({
    name: 'noise',
    module: 'std.anim',
    params: [num('seed', '0', 0), secs('period', '1s', 1)],
    result: 'Number',
    help: 'Deterministic smooth value noise in [-1, 1], a new random value every `period`, smoothstepped between.',
    example: 'sphere(r: 80px).translate(x: noise(seed: 7, period: 0.5s) * 100px)',
  }),
  symbol('forever', 'std.anim', 'Repeat', 'The repeat option of animate: `with { repeat: forever }`.'),
  ...Object.entries(EASING_HELP).map(([n, h]) =>
    symbol(`easing.${n}`, 'std.anim', 'Easing', `An easing for \`animate {...} with { easing: easing.${n} }\`: ${h}.`),
  ),

  // std.math
  fn({
    name: 'vec2',
    module: 'std.math',
    params: [num('x', '0', 0), num('y', '0', 1)],
    result: 'Vec2',
    help: 'A 2D point (the points of path(...)); named x: and y: win over positional.',
    example: 'vec2(100, 50)',
  }),
  fn({
    name: 'vec3',
    module: 'std.math',
    params: [num('x', '0', 0), num('y', '0', 1), num('z', '0', 2)],
    result: 'Vec3',
    help: 'A 3D point or direction (`from:`, `at:`); the drawer reads it positionally only.',
    example: 'vec3(1, 2, 3)',
  }),
  inert('dot', 'std.math', 'Documented by cmotion, not implemented (an inert node, not a number).'),
  inert('cross', 'std.math', 'Documented by cmotion, not implemented (an inert node, not a vector).'),
  inert('length', 'std.math', 'Documented by cmotion, not implemented (an inert node, not a number).'),
  inert('normalize', 'std.math', 'Documented by cmotion, not implemented (an inert node, not a vector).'),
  inert('lerp', 'std.math', 'Documented by cmotion, not implemented: use animate { ... } for interpolation.'),

  // std.filter, std.transport, std.audio: documented by cmotion, implemented by no runner
  inert('blur', 'std.filter', 'Documented by cmotion, not implemented.'),
  inert('color_grade', 'std.filter', 'Documented by cmotion, not implemented.'),
  inert(
    'playhead',
    'std.transport',
    'Documented by cmotion, not implemented: a source reads time only through the std.anim signals.',
  ),
  inert('tempo', 'std.transport', 'Documented by cmotion, not implemented.'),
  inert('fft', 'std.audio', 'Documented by cmotion, not implemented.'),
  inert('envelope_follow', 'std.audio', 'Documented by cmotion, not implemented.'),
  inert('beat', 'std.audio', 'Documented by cmotion, not implemented.'),
  inert('onset', 'std.audio', 'Documented by cmotion, not implemented.'),
];

/** The first runner version that draws the entry (runners.ts, the one list), or null when every version does. */
export function sinceOf(e: StdEntry): string | null {
  return functionSince(e.name);
}

/** The modules in reference order. */
export const STD_MODULES: readonly string[] = [...new Set(STDLIB.map((e) => e.module))];

const BY_NAME: ReadonlyMap<string, StdEntry> = new Map(STDLIB.map((e) => [e.name, e]));

/** The entry of a name as written (`rect`, `text.glyph`, `material`), or undefined. */
export function stdEntry(name: string): StdEntry | undefined {
  return BY_NAME.get(name);
}

/** The name a user types for an entry after its module path or receiver: `glyph` of `text.glyph`. */
export function memberName(e: StdEntry): string {
  return e.name.slice(e.name.lastIndexOf('.') + 1);
}

/** `rect(width: Length, height: Length, fill?: Color) -> Layer`; a symbol is `forever: Repeat`. */
export function signature(e: StdEntry): string {
  if (e.kind === 'symbol') return `${e.name}: ${e.result}`;
  const params = e.params.map((p) => `${p.name}${p.default !== undefined ? '?' : ''}: ${p.type}`).join(', ');
  const recv = e.kind === 'method' ? `${e.receiver ?? 'Node'}.` : '';
  return `${recv}${e.name}(${params}) -> ${e.result}`;
}

/**
 * Whether a method applies to a receiver of a type (`Layer`, `Solid`, `Image`, ...). The modifiers the table files
 * under `Solid` (material and the transforms) act on whatever object their receiver built, a flat layer or a nested
 * compose as much as a solid (viewer.md §4.2, §5.3); the image methods apply to an image only.
 */
export function appliesTo(e: StdEntry, type: string): boolean {
  if (e.kind !== 'method') return false;
  if (e.receiver === 'Solid') return type === 'Solid' || type === 'Layer';
  return e.receiver === type;
}
