// The user-facing language reference as Markdown: the prose of the syntax, types, scenes and time, and, generated
// from the language's own tables, the units (units.ts), the runner pins (runners.ts), the standard library by module
// (stdlib-docs.ts) and every diagnostic code (diagnostic-docs.ts). scripts/gen-language-doc.ts writes it to
// docs/language.md (a test keeps that file current); the service serves it at /docs/language and in /llms-full.txt.
// No Node-only APIs.

import { DIAGNOSTIC_DOCS } from './diagnostic-docs.js';
import { RUNNERS, newestRunner } from './runners.js';
import { STDLIB, STD_MODULES, signature, sinceOf, type StdEntry } from './stdlib-docs.js';
import { CANONICAL_SUFFIX, NUMBER_TYPES, UNIT_SUFFIXES, suffixDimension, unitTag } from './units.js';
import { MAX_GLYPH_OUTLINES, MAX_METABALLS, MAX_PATH_POINTS, MAX_SHAPES } from './drawing-limits.js';
import { STEP_BUDGET } from './limits.js';
import { MAX_ARGS_BYTES, MAX_ARG_LIST, MAX_ARG_STRING } from './scene-args.js';

const MODULE_BLURB: Record<string, string> = {
  'std.shapes': 'Flat layers, images and the symbols that go with them.',
  'std.text': 'Text as glyph outlines, for extrude.',
  'std.mesh3d': 'Solids and the postfix methods that shape, place and colour them.',
  'std.lighting': 'Lights and effects, given to `render3d(lights: [...])`.',
  'std.scene3d': 'The bridge from 3D solids to a layer of the frame, and its camera.',
  'std.anim': 'Time: signals that take their value at the frame time, easings and repeats.',
  'std.math': 'Points and directions.',
  'std.filter': 'Documented by cmotion; not implemented by any runner.',
  'std.transport': 'Documented by cmotion; not implemented by any runner.',
  'std.audio': 'Documented by cmotion; not implemented by any runner.',
};

const HELLO = `runner "${newestRunner()}";

scene hello() -> Frame {
  let bg = rect(width: 1920px, height: 1080px, fill: #14213d);
  let square = rect(width: 300px, height: 300px, fill: #ff3399);
  compose [bg, square]
}`;

const BOUNCE = `runner "${newestRunner()}";

scene bouncing(duration: Duration = 4.8s) -> Frame {
  let bg = rect(width: 1920px, height: 1080px, fill: #edf6f9);
  let hop = bounce(height: 620px, period: 1.6s, floor: -400px);
  let squash = on_event(hop.impacts, decay: 0.12s, peak: 0.4);
  let ball = sphere(r: 110px)
    .material(fill: #e29578, roughness: 0.5)
    .pivot(bottom)
    .squash(factor: squash);
  compose [bg, render3d(ball.translate(y: hop.position), lights: [ambient(0.45), directional(from: vec3(-2, 4, 4))])]
}`;

const code = (s: string, lang = 'cm') => ['```' + lang, s.replace(/\n$/, ''), '```'];
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function unitsTable(): string[] {
  const rows = [...UNIT_SUFFIXES]
    .sort((a, b) => (suffixDimension(a)! + a).localeCompare(suffixDimension(b)! + b))
    .map((u) => `| \`${u}\` | \`${unitTag(u)}\` | ${suffixDimension(u)} |`);
  return ['| Suffix | Tag in values | Category |', '|---|---|---|', ...rows];
}

function annotationsTable(): string[] {
  const rows = [...NUMBER_TYPES].map(
    ([type, dim]) =>
      `| \`${type}\` | ${dim ?? 'unitless'} | ${dim ? `\`${UNIT_SUFFIXES.filter((u) => suffixDimension(u) === dim).join('` `')}\` (e.g. \`5${CANONICAL_SUFFIX[dim]}\`)` : 'none'} |`,
  );
  return ['| Annotation | Category | Literal units |', '|---|---|---|', ...rows];
}

const CARD = `runner "${newestRunner()}";

scene card(name: String = "Ana", accent: Color = #ff3399, size: Length = 160px) -> Frame {
  let bg = rect(width: 1920px, height: 1080px, fill: #101820);
  let title = extrude(text.glyph(name, size: size), depth: 8px).material(fill: accent);
  compose [bg, render3d(title, lights: [ambient(0.9)])]
}`;

/** The JSON each declared type takes as a scene argument (scene-args.ts), unit types from the units table. */
function argsTable(): string[] {
  const unitTypes = [...NUMBER_TYPES].filter(([, dim]) => dim !== null);
  const example = (dim: string) => {
    const u = CANONICAL_SUFFIX[dim as keyof typeof CANONICAL_SUFFIX];
    return `\`"2${u}"\``;
  };
  return [
    '| Declared type | JSON | Example |',
    '|---|---|---|',
    `| \`String\` | a string, at most ${MAX_ARG_STRING} characters, drawn exactly as given (no escapes are read) | \`"O\\"Brien \\\\ }; //"\` |`,
    '| `Number`, `Float` | a number | `2.5` |',
    '| `Int` | an integer | `3` |',
    '| `Bool` | `true` or `false` | `true` |',
    ...unitTypes.map(
      ([type, dim]) =>
        `| \`${type}\` | a string holding one ${dim} literal, a leading \`-\` allowed (${UNIT_SUFFIXES.filter(
          (u) => suffixDimension(u) === dim,
        )
          .map((u) => `\`${u}\``)
          .join(', ')}) | ${example(dim!)} |`,
    ),
    '| `Color` | a string holding one colour literal: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `oklch(l, c, h)`, `oklab(l, a, b)`, `srgb(r, g, b)` | `"#ff3399"`, `"oklch(0.7, 0.1, 200)"` |',
    `| \`List<T>\` | an array of T, at most ${MAX_ARG_LIST} elements | \`["Ana", "Bo"]\` |`,
    '| a record `{a: T, b: U}` | an object with exactly those fields | `{"a": ..., "b": ...}` |',
    '| anything else: `Frame`, a tuple, a function, a library type | refused for that parameter, naming the type: it is code or a drawing, not data | |',
  ];
}

function runnersTable(): string[] {
  const rows = RUNNERS.map(
    (r) =>
      `| \`${r.version}\` | ${r.available ? 'yes' : 'no'} | ${r.functions.map((f) => `\`${f}\``).join(', ') || '—'} | ${r.features.join(', ') || '—'} |`,
  );
  return ['| Runner | Available | Functions it adds | Features it adds |', '|---|---|---|---|', ...rows];
}

function entry(e: StdEntry): string[] {
  const since = sinceOf(e);
  const notes = [
    e.kind === 'method' ? `postfix method on a ${e.receiver}` : e.kind === 'symbol' ? 'symbol' : '',
    since ? `runner ${since} or later` : '',
    e.implemented ? '' : 'inert: documented by cmotion, drawn by nothing',
  ].filter(Boolean);
  const out = [`### \`${e.kind === 'method' ? '.' : ''}${e.name}\``, '', ...code(signature(e), 'text'), '', e.help];
  if (notes.length) out.push('', `*${notes.join('; ')}*`);
  if (e.params.length) {
    out.push('', '| Parameter | Type | Default | Unit | Given as |', '|---|---|---|---|---|');
    for (const p of e.params)
      out.push(
        `| \`${p.name}\` | ${cell(p.type)} | ${p.default !== undefined ? `\`${cell(p.default)}\`` : 'required or unset'} | ${p.unit ?? ''} | ${p.position === undefined || p.position === 'named' ? 'named' : `named or position ${p.position}`} |`,
      );
  }
  if (e.example) out.push('', ...code(e.example));
  out.push('');
  return out;
}

function stdlib(): string[] {
  const out: string[] = [
    '## The standard library',
    '',
    'Every library name is visible without an import (`use std.shapes.*;` is accepted and changes nothing). A call to a library name builds a node of the scene; nothing validates its arguments: a missing, misspelt or mistyped argument reads as its default, so check the parameter names below. Qualified names such as `std.shapes.rect` are inert: write `rect`. When a named argument is repeated, the last one counts.',
    '',
  ];
  for (const m of STD_MODULES) {
    out.push(`## ${m}`, '', MODULE_BLURB[m] ?? '', '');
    for (const e of STDLIB.filter((x) => x.module === m)) out.push(...entry(e));
  }
  return out;
}

function diagnostics(): string[] {
  const out: string[] = [
    '## Diagnostics',
    '',
    'Every problem is a diagnostic: a code, a message, a 1-based line and a column counted in UTF-8 bytes, a `help` line and a repair. `POST /v1/check` and `cmrender check` list them without rendering; a job that fails on one ends with `status: "error"`, its `code`, and `diagnostics`, each with a `docs` link to `GET /v1/diagnostics/{code}`; `cmrender explain CODE` prints the same explanation.',
    '',
    '| Code | Title | Found while |',
    '|---|---|---|',
    ...DIAGNOSTIC_DOCS.map((d) => `| [${d.code}](#${d.code.toLowerCase()}) | ${d.title} | ${d.stage} |`),
    '',
  ];
  for (const d of DIAGNOSTIC_DOCS) {
    out.push(`### ${d.code}`, '', `**${d.title}** (${d.severity}, ${d.stage})`, '', d.explanation, '');
    if (d.wrong) out.push(`Wrong${d.assets ? ` (${d.assets.wrong})` : ''}:`, '', ...code(d.wrong), '');
    if (d.right) out.push(`Right${d.assets ? ` (${d.assets.right})` : ''}:`, '', ...code(d.right), '');
  }
  return out;
}

/** The whole reference, Markdown. */
export function languageReference(): string {
  const lines: string[] = [
    '# The .cm language',
    '',
    '<!-- Generated by `npx tsx scripts/gen-language-doc.ts` from src/lang (reference.ts and the tables it reads); do not edit by hand. -->',
    '',
    "A `.cm` source describes an animated scene: layers and 3D solids, lights, and values that change with time. This service renders it to a PNG, a video or a GIF. The language is cmotion's; where cmrender differs, it says so here.",
    '',
    '## A first scene',
    '',
    ...code(HELLO),
    '',
    "The first `rect` of the top-level `compose` is the background: it sets the frame's aspect (here 16:9) and its pixel scale (its height is the frame's height). Every other layer is drawn over it, in order, centred.",
    '',
    '## Syntax',
    '',
    '- **Comments**: `// to the end of the line` and `/* block */`, allowed wherever whitespace is.',
    '- **Names**: letters, digits and `_`, not starting with a digit. Keywords are contextual (`scene`, `let`, `compose`, ... are keywords only where they start a form).',
    '- **Runner pin**: `runner "x.y.z";` first in the file picks the version of the library the source is written for (see [Runner pins](#runner-pins)).',
    '- **Imports**: `use std.shapes.*;`, `use std.text;`, `use a.b as c;` are accepted; library names need none.',
    '- **Top level**: `let name = expr;`, `let name: Type = expr;`, `export name: Type = expr;`, and `scene`, `component` or `filter` declarations: `scene name(param: Type = default, ...) -> Frame { block }`.',
    '- **Blocks**: `{ let a = ...; let b = ...; result }`: lets in order (each sees the ones above it), then the value of the block.',
    '- **Literals**: numbers with an optional unit (`12`, `0.5`, `1_000`, `300px`, `1.5s`, `90deg`, `50%`), strings (`"text"`, raw `"""text"""`), `true`/`false`, colours (`#rgb`, `#rrggbb`, `#rrggbbaa`, `oklch(L, C, h)`, `oklab(L, a, b)`, `srgb(r, g, b)`), arrays `[a, b]` and records `{ x: 1, y: 2 }`.',
    '- **Calls**: positional, named, or both: `rect(width: 100px, height: 50px)`, `sphere(80px)`. Methods chain after a value: `sphere(r: 80px).material(fill: #f00).translate(x: 100px)`.',
    '- **Lambdas**: `|x: Length, k: Number = 2| { x * k }`, called as `f(10px)` or `f(x: 10px, k: 3)`. A lambda sees the names bound before it, never itself.',
    '- **Conditions**: `if cond { a } else { b }` (a `bool` is required, no truthiness) and `match v { 1 => a, x => b, _ => c }`.',
    '- **Fields and indexes**: `record.name`, `record["name"]`, `array[0]`.',
    '- **Animation**: `animate { 0s => 0px, 2s => 300px } with { easing: easing.out_cubic, repeat: forever }`.',
    '- **Composition**: `compose [layer, layer, ...]` at the top of a scene; inside `render3d(...)` it groups solids.',
    '',
    'Operators, loosest first: `||`; `&&`; `==` `!=`; `<` `<=` `>` `>=`; `+` `-`; `*` `/` `%`; `**` (right associative); prefix `-` and `!` (not stacked: write `-(-x)`); then `.name`, calls and `[index]`, tightest. `&&` and `||` evaluate both sides. Division by zero gives 0.',
    '',
    '## Types and units',
    '',
    'Values are numbers (with an optional unit), strings, booleans, colours, arrays, records, lambdas and scene nodes (what library calls build). Type annotations are written on parameters and may be written on lets; the checker compares them with literal values (TYP002, UNT001, UNT002); evaluation ignores them.',
    '',
    "A number keeps the unit it was written with. `+`, `-`, `%` and comparisons need units of one category and convert within it (the result takes the left unit: `1s + 500ms` is `1.5s`); a unit and no unit, or two categories, is EVL002. `*`, `/` and `**` take the left operand's unit, else the right one's.",
    '',
    ...unitsTable(),
    '',
    'Annotations and the units their literals need:',
    '',
    ...annotationsTable(),
    '',
    'Where the library reads a number: sizes, positions and radii are frame pixels whatever the unit; `.rotate` reads `deg` as degrees and everything else as radians; time parameters read `ms`, `us`, `ns` and `s` as times and anything else as seconds.',
    '',
    '## Scenes and time',
    '',
    '- **What renders**: the first `scene` whose parameters all have defaults; else the first such `component` or `filter`; else the first top-level `let` or `export`. Nothing at all is REN001.',
    "- **Duration**: the rendered scene's `duration` parameter default (`scene s(duration: Duration = 4s)`), else 6 s. A render may ask for another.",
    '- **Frame**: the first layer of the top-level `compose`: a `rect` sets the aspect and the pixel scale; an `image(...).fit(cover)` is a 16:9 background. Without one, 1920x1080.',
    "- **Time**: a source never reads the clock. The signals of `std.anim` (`animate`, `wave`, `bounce`, `on_event`, `noise`) take their value at each frame's time, and arithmetic on them works (`wave(amplitude: 50px, period: 2s) * 2`). Frame *i* of a video at *fps* is the scene at *i*/*fps* seconds.",
    '- **Easings**: `easing.linear`, `easing.in_quad`, `easing.out_quad`, `easing.in_out_quad`, `easing.in_cubic`, `easing.out_cubic`, `easing.in_out_cubic`; any other name is linear. `repeat: forever` loops; `repeat: N` plays N times, then holds.',
    "- **3D**: solids (`sphere`, `extrude`, `svg`, `vectorize`, `metaballs`) are drawn by `render3d(solid, lights: [...])`, a layer like any other. y points up, z toward the camera, 1 px is one pixel of the frame's height.",
    `- **Limits**: one frame may take ${STEP_BUDGET.toLocaleString('en-US')} evaluation steps (EVL006) and draw at most ${MAX_SHAPES} shapes (EVL012), ${MAX_GLYPH_OUTLINES} distinct glyph outlines (EVL009), ${MAX_PATH_POINTS.toLocaleString('en-US')} path points (EVL010) and ${MAX_METABALLS} metaball blobs (EVL011).`,
    '',
    ...code(BOUNCE),
    '',
    '## Scene arguments',
    '',
    "A request may bind the rendered scene's parameters to data: `args` beside `source` (`POST /v1/frame`, `/v1/render`, `/v1/gif`, `/v1/check`), `--arg name=value` on the command line, the editor's parameters panel, `args` of the MCP tools. One scene then renders any data, typed and checked, instead of values pasted into the source's text (where a `\"` or a `\\` in a name changes the program).",
    '',
    ...code(CARD),
    '',
    '```json',
    '{"source": "...", "args": {"name": "O\\"Brien", "accent": "#00a6fb", "size": "200px"}}',
    '```',
    '',
    'Each parameter\'s declared type decides the JSON it takes. A unit or colour value is a string read by the language\'s own lexer as ONE literal, never as an expression (`"1s + 1s"` is refused):',
    '',
    ...argsTable(),
    '',
    `- **Which scene renders**: without args, the rule above. With args, the first \`scene\` whose required parameters (those without a default) they all give and that declares every name they give; else the first whose required ones they give. A scene with required parameters renders only this way.`,
    `- **Checked first**: a wrong type, a wrong unit, an unknown name (with "did you mean"), a required parameter missing, or args for a scene without parameters are each a problem \`{path, expected, given, message}\` (\`path\` as \`args.accent\`, \`args.names[2]\`), all reported at once, before anything renders (HTTP: 400 \`invalid_args\`). The whole \`args\` is at most ${MAX_ARGS_BYTES} bytes of JSON.`,
    '- **The signature**: `POST /v1/check` and `cmrender check --json` answer `scene: {name, params: [{name, type, default, required}], schema}`, where `schema` is the JSON Schema (2020-12) of the args; `cmrender schema FILE` prints the schema alone.',
    "- **Duration**: an argument named `duration` sets the clip's length as its default would.",
    '',
    '## Runner pins',
    '',
    `\`runner "x.y.z";\` pins the library a source is written for. A pin this service does not have is RUN001; a function newer than the pin is RUN002. No pin means the newest, \`${newestRunner()}\`.`,
    '',
    ...runnersTable(),
    '',
    ...stdlib(),
    ...diagnostics(),
  ];
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n*$/, '\n');
}
