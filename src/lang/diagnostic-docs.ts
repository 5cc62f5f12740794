// Every diagnostic code a source can meet, explained: a title, a long explanation, and a wrong and a right snippet.
// The language emits all but ASS001/ASS002 (the service emits those when it resolves a job's images). Served by
// GET /v1/diagnostics[/{code}], `cmrender explain CODE`, the language reference and the agent tools; each job's
// diagnostics link here. test/lang/diagnostic-docs.test.ts holds it to the codes the code really emits, and runs every
// snippet: the wrong one must produce its code, the right one must compile clean.
// No Node-only APIs: the editor may bundle this module.

import type { Severity } from './diagnostics.js';

export type DiagnosticStage = 'parse' | 'check' | 'runner' | 'evaluate' | 'render' | 'service';

export interface DiagnosticDoc {
  code: string;
  title: string;
  severity: Severity;
  stage: DiagnosticStage;
  /** what it means, why the language says so, and how to fix it */
  explanation: string;
  /** a source that produces the code; absent only where `noSnippet` says why */
  wrong?: string;
  /** the same source, fixed: it compiles clean */
  right?: string;
  /** why an entry has no snippets (an internal error no source should produce; a source too large to print) */
  noSnippet?: string;
  /** for the service's codes: which images the job uploads with each snippet */
  assets?: { wrong: string; right: string };
}

const scene = (body: string, head = 'runner "0.0.13";\n'): string =>
  `${head}scene main() -> Frame {\n${body
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n')}\n}\n`;
const BG = 'rect(width: 640px, height: 360px, fill: #102030)';

/** `let a0 = x; let a1 = [a0, a0]; ...`: 2^levels uses of x in a few lines */
const doubling = (x: string, levels: number): string =>
  [`let a0 = ${x};`, ...Array.from({ length: levels }, (_, i) => `let a${i + 1} = [a${i}, a${i}];`)].join('\n');

export const DIAGNOSTIC_DOCS: readonly DiagnosticDoc[] = [
  {
    code: 'PAR100',
    title: 'Syntax error',
    severity: 'error',
    stage: 'parse',
    explanation:
      'The parser met a token it did not expect: a missing comma between arguments, an unclosed bracket or string, a character the language does not use. The message names what was expected and what was found, at the offending token. Nothing else is checked until the source parses, so fix this first.',
    wrong: scene(`compose [rect(width: 640px height: 360px)]`),
    right: scene(`compose [rect(width: 640px, height: 360px)]`),
  },
  {
    code: 'PAR101',
    title: 'Nesting too deep',
    severity: 'error',
    stage: 'parse',
    explanation:
      'More than 256 levels of nesting (parentheses, brackets, blocks, or long operator and method chains, which build equally deep trees). The limit keeps a hostile source from exhausting the parser. Name intermediate values with `let` instead of nesting them.',
    wrong: scene(`let x = ${'('.repeat(300)}1${')'.repeat(300)};\ncompose [${BG}]`),
    right: scene(`let x = 1;\ncompose [${BG}]`),
  },
  {
    code: 'LWR000',
    title: 'Internal compiler error',
    severity: 'error',
    stage: 'check',
    explanation:
      'The compiler failed on a source that parsed. This is a bug in cmrender, not in the source: report the source that triggers it. (cmotion used this code for comments in places its lowering could not handle; cmrender accepts comments wherever whitespace is.)',
    noSnippet: 'an internal error: no source should produce it',
  },
  {
    code: 'LWR001',
    title: 'A path cannot be extruded',
    severity: 'error',
    stage: 'check',
    explanation:
      'A `path(...)` needs at least 3 points to enclose an area, and an open path (`closed: false`) has no cap face, so neither can become a solid. Give the path 3 or more points and leave it closed.',
    wrong: scene(
      `let p = path(points: [vec2(0px, 0px), vec2(100px, 0px)]);\ncompose [${BG}, render3d(extrude(p, depth: 20px))]`,
    ),
    right: scene(
      `let p = path(points: [vec2(0px, 0px), vec2(100px, 0px), vec2(50px, 80px)]);\ncompose [${BG}, render3d(extrude(p, depth: 20px))]`,
    ),
  },
  {
    code: 'NAM003',
    title: 'Unknown identifier',
    severity: 'error',
    stage: 'check',
    explanation:
      "A name is used that no `let`, parameter, top-level declaration, import or library name declares. Usually a typo: the message suggests the closest visible name (`did you mean 'bg'?`). Library names need no import.",
    wrong: scene(`let bg = ${BG};\ncompose [bgg]`),
    right: scene(`let bg = ${BG};\ncompose [bg]`),
  },
  {
    code: 'NAM004',
    title: 'Forward reference',
    severity: 'error',
    stage: 'check',
    explanation:
      'A name is used before the `let` that declares it in the same block (or an enclosing one). A block is evaluated top to bottom, and a `let` sees only the lets above it. Move the declaration above its first use.',
    wrong: scene(`let h = w / 2;\nlet w = 640px;\ncompose [rect(width: w, height: h)]`),
    right: scene(`let w = 640px;\nlet h = w / 2;\ncompose [rect(width: w, height: h)]`),
  },
  {
    code: 'NAM005',
    title: 'Duplicate top-level declaration',
    severity: 'error',
    stage: 'check',
    explanation:
      'Two top-level declarations (let, export, scene, component, filter, or an import name) use one name. Only one can be meant; rename one of them.',
    wrong: `runner "0.0.13";\nlet size = 100px;\nlet size = 200px;\n${scene(`compose [rect(width: size, height: size)]`, '')}`,
    right: `runner "0.0.13";\nlet small = 100px;\nlet large = 200px;\n${scene(`compose [rect(width: large, height: small)]`, '')}`,
  },
  {
    code: 'NAM006',
    title: 'Duplicate parameter name',
    severity: 'error',
    stage: 'check',
    explanation:
      'A scene, component, filter or lambda lists the same parameter name twice, so the second could never be read. Rename one.',
    wrong: scene(`let area = |w: Length, w: Length| { w * w };\ncompose [rect(width: area(2px, 3px), height: 10px)]`),
    right: scene(`let area = |w: Length, h: Length| { w * h };\ncompose [rect(width: area(2px, 3px), height: 10px)]`),
  },
  {
    code: 'NAM007',
    title: 'Not a shape extrude can use',
    severity: 'error',
    stage: 'check',
    explanation:
      '`extrude(...)` turns a 2D outline into a solid, and knows two outlines: `path(...)` and `text.glyph(...)`. A layer such as `rect(...)` or `circle(...)` has no outline to extrude. Use a path with the same corners, or `svg(...)` for other shapes.',
    wrong: scene(`compose [${BG}, render3d(extrude(rect(width: 100px, height: 100px), depth: 20px))]`),
    right: scene(
      `let sq = path(points: [vec2(0px, 0px), vec2(100px, 0px), vec2(100px, 100px), vec2(0px, 100px)]);\ncompose [${BG}, render3d(extrude(sq, depth: 20px))]`,
    ),
  },
  {
    code: 'TYP002',
    title: 'Type mismatch',
    severity: 'error',
    stage: 'check',
    explanation:
      'An annotated `let`, `export` or parameter default is a literal of another kind than its type: a string for a Number, a number for a Color. Change the literal or the annotation.',
    wrong: scene(`let n: Number = "five";\ncompose [${BG}]`),
    right: scene(`let n: Number = 5;\ncompose [${BG}]`),
  },
  {
    code: 'UNT001',
    title: 'Unit of the wrong kind',
    severity: 'error',
    stage: 'check',
    explanation:
      "A number literal's unit is not of the category its annotation asks for: a length (`px`) where a Duration (`s`, `ms`) is expected, or any unit on a plain Number. Use a unit of the annotated category.",
    wrong: scene(`let d: Duration = 5px;\ncompose [${BG}]`),
    right: scene(`let d: Duration = 5s;\ncompose [${BG}]`),
  },
  {
    code: 'UNT002',
    title: 'Missing unit',
    severity: 'error',
    stage: 'check',
    explanation:
      'An annotation asks for a unit category (Duration, Length, Angle, ...) and the literal has no unit. Write the unit: a bare `5` could mean seconds or milliseconds.',
    wrong: scene(`let d: Duration = 5;\ncompose [${BG}]`),
    right: scene(`let d: Duration = 5s;\ncompose [${BG}]`),
  },
  {
    code: 'RUN001',
    title: 'Unknown runner version',
    severity: 'error',
    stage: 'runner',
    explanation:
      'The `runner "x.y.z";` pin names a version this service does not have. The message lists the available versions; pin one of them, or remove the pin to use the newest. A pin fixes which library functions the source may use, so its render never changes when the service gains new ones.',
    wrong: scene(`compose [${BG}]`, 'runner "9.9.9";\n'),
    right: scene(`compose [${BG}]`, 'runner "0.0.13";\n'),
  },
  {
    code: 'RUN002',
    title: 'Needs a newer runner',
    severity: 'warning',
    stage: 'runner',
    explanation:
      'A library function (or raw `"""` strings) first appeared in a runner newer than the one the source pins. cmotion renders such a source on its newest runner whatever the pin says, so this is a warning and the job renders; raise the pin to the version the message names so the source says what it needs.',
    wrong: scene(
      `compose [${BG}, render3d(svg("""<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>""", depth: 10px))]`,
      'runner "0.0.3";\n',
    ),
    right: scene(
      `compose [${BG}, render3d(svg("""<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>""", depth: 10px))]`,
      'runner "0.0.5";\n',
    ),
  },
  {
    code: 'EVL002',
    title: 'Operation on the wrong kind of value',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      'An operator, condition, field access or index met a value it cannot work on: arithmetic on a string, `+` between a length and a plain number (units must match, or convert within one category: `1s + 500ms` is fine), a field a record does not have, an index out of bounds, or a call of a value that is not a lambda. The message names the operation, what it expected and what it got.',
    wrong: scene(`let w = 100px + 20;\ncompose [rect(width: w, height: 100px)]`),
    right: scene(`let w = 100px + 20px;\ncompose [rect(width: w, height: 100px)]`),
  },
  {
    code: 'EVL004',
    title: 'Missing required argument',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      'A lambda was called without a value for a parameter that has no default. Pass it (by name or position), or give the parameter a default (`|n: Number = 1| ...`).',
    wrong: scene(`let twice = |x: Length| { x * 2 };\ncompose [rect(width: twice(), height: 100px)]`),
    right: scene(`let twice = |x: Length| { x * 2 };\ncompose [rect(width: twice(50px), height: 100px)]`),
  },
  {
    code: 'EVL005',
    title: 'Not a finite number',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      'Arithmetic gave Infinity or NaN (a power too large, the root of a negative number). A frame cannot carry such a number to the drawer. Keep the operands in range. (Division by zero is defined as 0, as in the reference.)',
    wrong: scene(`let big = 10 ** 400;\ncompose [${BG}]`),
    right: scene(`let big = 10 ** 4;\ncompose [${BG}]`),
  },
  {
    code: 'EVL006',
    title: 'Too much work for one frame',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      'Evaluating one frame took more than 200 000 steps (the largest example needs under 500), usually an exponential recursion built by applying a lambda to itself. Reduce the work: compute a value once and reuse it with `let`.',
    wrong: scene(
      `let f = |g: Fn, n: Number| { if n > 0 { [g(g, n - 1), g(g, n - 1)] } else { 0 } };\nlet x = f(f, 60);\ncompose [${BG}]`,
    ),
    right: scene(
      `let f = |g: Fn, n: Number| { if n > 0 { [g(g, n - 1), g(g, n - 1)] } else { 0 } };\nlet x = f(f, 3);\ncompose [${BG}]`,
    ),
  },
  {
    code: 'EVL007',
    title: 'Nested too deeply while evaluating',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      'More than 150 nested lambda calls or 1 200 nested evaluations: unbounded recursion, such as a lambda applied to itself with no way to stop. Give the recursion a bound, or avoid it.',
    wrong: scene(`let f = |g: Fn| { g(g) };\nlet x = f(f);\ncompose [${BG}]`),
    right: scene(`let f = |g: Fn| { 1 };\nlet x = f(f);\ncompose [${BG}]`),
  },
  {
    code: 'EVL008',
    title: 'Scene value too large',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      'The rendered value has more than 100 000 nodes (a shared value counts at every use) or is nested deeper than 200 levels; it could not be sent to the drawer every frame. The largest example has under 300 nodes. Draw fewer things, or fewer copies of them.',
    wrong: scene(`${doubling('1', 17)}\ncompose [${BG}, a17]`),
    right: scene(`${doubling('1', 4)}\ncompose [${BG}, a4]`),
  },
  {
    code: 'EVL009',
    title: 'Too many glyphs',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      "One frame asks the page for more than 256 distinct glyph outlines (a character at a size and depth: each is extruded and bevelled once, then drawn as instances), or for more than 32 million vertices of glyphs, counted as if every character were the font's largest outline at its size: about 330 characters of 96 px or more, or thousands of characters of ordinary text. Draw smaller or shorter text, or fewer sizes of it.",
    wrong: scene(
      `let t = render3d(extrude(text.glyph("${'x'.repeat(400)}", size: 120px), depth: 4px));\ncompose [${BG}, t]`,
    ),
    right: scene(
      `let t = render3d(extrude(text.glyph("${'x'.repeat(16)}", size: 20px), depth: 4px));\ncompose [${BG}, t]`,
    ),
  },
  {
    code: 'EVL010',
    title: 'Too many path points',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      'The paths of one frame have more than 10 000 points in all (every use of a path counts). Simplify the outlines, or draw fewer of them.',
    wrong: scene(
      `${doubling('render3d(extrude(path([vec2(0px, 0px), vec2(9px, 0px), vec2(0px, 9px)]), depth: 2px))', 12)}\ncompose [${BG}, a12]`,
    ),
    right: scene(
      `${doubling('render3d(extrude(path([vec2(0px, 0px), vec2(9px, 0px), vec2(0px, 9px)]), depth: 2px))', 2)}\ncompose [${BG}, a2]`,
    ),
  },
  {
    code: 'EVL011',
    title: 'Too many metaball blobs',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      'One frame melts more than 96 metaball blobs in all (each is raymarched at every pixel). Use fewer blobs or fewer metaballs bodies.',
    wrong: scene(
      `let b = blob(radius: 10px);\n${doubling(`render3d(metaballs([${Array(24).fill('b').join(', ')}]))`, 3)}\ncompose [${BG}, a3]`,
    ),
    right: scene(
      `let b = blob(radius: 10px);\n${doubling(`render3d(metaballs([${Array(24).fill('b').join(', ')}]))`, 1)}\ncompose [${BG}, a1]`,
    ),
  },
  {
    code: 'EVL012',
    title: 'Too many shapes',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      'One frame draws more than 4 096 shapes (rect, circle, image and solids, every use counted); each costs the drawer a mesh and a material. Draw fewer.',
    wrong: scene(`${doubling('rect(width: 2px, height: 2px)', 13)}\ncompose [${BG}, a13]`),
    right: scene(`${doubling('rect(width: 2px, height: 2px)', 3)}\ncompose [${BG}, a3]`),
  },
  {
    code: 'EVL013',
    title: 'Scene value too large to send',
    severity: 'error',
    stage: 'evaluate',
    explanation:
      "The frame's value would be more than 16 MiB of JSON (16,777,216 characters), counting a shared string or subtree at every use: a 17,000-character string used in 1,024 places is 17 MiB even though the source is small. The value is sent to the drawing page every frame, so it is bounded; a job that passes it ends with code `memory_budget`. Use long strings once, not in every element of a large array.",
    noSnippet: 'a source that produces it holds a string of tens of thousands of characters',
  },

  {
    code: 'REN001',
    title: 'No scene to render',
    severity: 'error',
    stage: 'render',
    explanation:
      'Nothing in the source can be drawn: no scene (or component, filter, let) whose parameters all have defaults. A scene with a required parameter is skipped, as there is no value to give it. Declare `scene main() -> Frame { ... }`, or give every parameter a default.',
    wrong: `runner "0.0.13";\nscene main(color: Color) -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: color)]\n}\n`,
    right: `runner "0.0.13";\nscene main(color: Color = #102030) -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: color)]\n}\n`,
  },
  {
    code: 'LIB001',
    title: 'Unknown argument of a library call',
    severity: 'warning',
    stage: 'check',
    explanation:
      "A library call (`rect`, `sphere`, `.material`, ...) was given a named argument it does not read. cmotion checks no library argument: a misspelt name is ignored and the parameter's default applies, so `rect(widht: 300px)` is a rectangle of width 0 and draws nothing. The message suggests the closest name the call reads. A warning of cmrender's own (beyond cmotion): the job still renders, exactly as before.",
    wrong: scene(`compose [${BG}, rect(widht: 300px, height: 100px)]`),
    right: scene(`compose [${BG}, rect(width: 300px, height: 100px)]`),
  },
  {
    code: 'LIB002',
    title: 'Method unknown for its receiver',
    severity: 'warning',
    stage: 'check',
    explanation:
      "A method was called on a value whose type the source makes plain (a library call such as `rect(...)`, a chain of methods on one, or a `let` of one), and that type has no such method: a misspelling (`.rotat`) or a method of another type (`.fit` belongs to an image). cmotion makes an inert node of it and the drawer skips it, so the whole layer can vanish. The message names the closest method that applies. A warning of cmrender's own (beyond cmotion): the job still renders.",
    wrong: scene(`compose [${BG}, rect(width: 100px, height: 100px).rotat(z: 30deg)]`),
    right: scene(`compose [${BG}, rect(width: 100px, height: 100px).rotate(z: 30deg)]`),
  },
  {
    code: 'LIB003',
    title: 'Drawn by nothing',
    severity: 'warning',
    stage: 'check',
    explanation:
      "cmotion documents the function or method, but no runner of cmotion's and nothing in cmrender draws it (`blur`, `color_grade`, `ellipse`, `perspective`, the std.math helpers, the audio and transport names): the call becomes an inert node that renders as nothing. The message's help names a drawn form where there is one. A warning of cmrender's own (beyond cmotion): the job still renders.",
    wrong: scene(`compose [${BG}, rect(width: 100px, height: 100px).blur(5)]`),
    right: scene(`compose [${BG}, rect(width: 100px, height: 100px)]`),
  },
  {
    code: 'LIB004',
    title: 'Wrong type or unit for a parameter',
    severity: 'warning',
    stage: 'check',
    explanation:
      "A literal argument does not fit the parameter it is given to: a length in seconds (`width: 10s`), an angle where a length is read (`radius: 5deg`), a length where an angle is read (`rotate(z: 30px)`, read as 30 radians), a number where a colour is read (`fill: 12px`, read as white). The drawer reads lengths as pixels and angles as radians whatever the unit says, and a non-colour as white, so the picture is silently wrong. The message names the type and unit the parameter expects. A warning of cmrender's own (beyond cmotion): the job still renders.",
    wrong: scene(`compose [${BG}, circle(radius: 50deg, fill: #ff8800)]`),
    right: scene(`compose [${BG}, circle(radius: 50px, fill: #ff8800)]`),
  },
  {
    code: 'LIB005',
    title: 'Text drawn as written',
    severity: 'warning',
    stage: 'check',
    explanation:
      'A text drawn by `text.glyph(...)` holds a backslash escape or is a raw `"""` string. cmotion decodes no escape and strips only one pair of quotes from a drawn text, so `"O\\"Brien"` draws `O\\"Brien` and `"""Hi"""` draws `""Hi""`; cmrender draws the same. Write drawn text in plain quotes without escapes; for text that comes as data (names with quotes), pass it as a scene argument. A warning of cmrender\'s own (beyond cmotion): the job still renders.',
    wrong: scene(`compose [${BG}, render3d(extrude(text.glyph("O\\"Brien", size: 80px), depth: 10px))]`),
    right: scene(`compose [${BG}, render3d(extrude(text.glyph("O'Brien", size: 80px), depth: 10px))]`),
  },
  {
    code: 'LIB006',
    title: 'Characters the font cannot draw',
    severity: 'warning',
    stage: 'check',
    explanation:
      "Text is drawn in one font, DM Sans Bold, the reference runners' font. It has outlines for Latin letters (with Latin-1 and Latin Extended-A accents), digits and common punctuation and symbols, and none for CJK, emoji, arrows, stars and most other symbols: those characters draw as empty boxes. The message lists the characters the font lacks. A warning of cmrender's own (beyond cmotion): the job still renders.",
    wrong: scene(`compose [${BG}, render3d(extrude(text.glyph("★ 日本", size: 80px), depth: 10px))]`),
    right: scene(`compose [${BG}, render3d(extrude(text.glyph("* Nihon", size: 80px), depth: 10px))]`),
  },
  {
    code: 'ANI001',
    title: 'Operator on an animated value',
    severity: 'warning',
    stage: 'evaluate',
    explanation:
      "An arithmetic operator, comparison or unary minus was applied to the value of `animate`, `wave`, `bounce`, `on_event` or `noise` (`animate { ... } - 330px`, `wave(...) * 2`). cmotion keeps those values symbolic and never computes with them: its evaluation fails and its runner refuses the whole source (stdlib.md §1). cmrender evaluates every frame at its time and renders it, and says so with this warning, as the source will not render on cmotion. To keep it portable, put the arithmetic inside the keyframes (`animate { 0s => -330px, 1s => -230px }`) or the signal's arguments. A warning of cmrender's own (beyond cmotion): the job renders.",
    wrong: scene(
      `compose [${BG}, rect(width: 100px, height: 100px).translate(y: animate { 0s => 0px, 2s => 200px } - 100px)]`,
    ),
    right: scene(
      `compose [${BG}, rect(width: 100px, height: 100px).translate(y: animate { 0s => -100px, 2s => 100px })]`,
    ),
  },
  {
    code: 'ASS001',
    title: 'Image not available',
    severity: 'error',
    stage: 'service',
    explanation:
      'The scene uses `image("...")` with a path the job did not upload (POST /v1/assets gives a key; the job maps each in-source path to its key in `assets`), or the drawer could not load that file. Upload the image and map its exact path; from the command line, give the file with `cmrender render scene.cm -o out.png --asset /img/photo.png=./photo.png`. The source itself is right: what changes is what the job is given.',
    wrong: scene(`compose [image("/img/photo.png").fit(cover)]`),
    right: scene(`compose [image("/img/photo.png").fit(cover)]`),
    assets: {
      wrong: 'no assets',
      right:
        '`assets: {"/img/photo.png": "<key from POST /v1/assets>"}`, or `--asset /img/photo.png=./photo.png` on the command line',
    },
  },
  {
    code: 'ASS002',
    title: 'Image too large to draw',
    severity: 'error',
    stage: 'service',
    explanation:
      "An image's header declares more pixels than the service draws (40 million, or a side over 16 384), judged before the drawer decodes it. Scale the image down before uploading it.",
    wrong: scene(`compose [image("/img/photo.png").fit(cover)]`),
    right: scene(`compose [image("/img/photo.png").fit(cover)]`),
    assets: {
      wrong: '"/img/photo.png" mapped to a 20000 x 20000 PNG',
      right: '"/img/photo.png" mapped to a 1920 x 1080 PNG',
    },
  },
];

const BY_CODE: ReadonlyMap<string, DiagnosticDoc> = new Map(DIAGNOSTIC_DOCS.map((d) => [d.code, d]));

/** The explanation of a code, or undefined for a code no part of the service emits. */
export function diagnosticDoc(code: string): DiagnosticDoc | undefined {
  return BY_CODE.get(code);
}

/** Where a code's explanation is served (the link a job's diagnostic carries). */
export function diagnosticDocsPath(code: string): string {
  return `/v1/diagnostics/${encodeURIComponent(code)}`;
}
