// Scene arguments in the language (src/lang/scene-args.ts): the JSON table by declared type, the limits at and past
// their edges, which scene renders with args, and the JSON Schema of a scene's args (checked by Ajv's 2020-12 draft).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  CompileCache,
  compile,
  describeScene,
  MAX_ARGS_BYTES,
  MAX_ARG_LIST,
  MAX_ARG_STRING,
  type Value,
} from '../../src/lang/index.js';

const scene = (params: string, body = 'compose []') => `scene card(${params}) -> Frame { ${body} }`;

/** The value a scene's parameter `x` takes with args {x: json}, or the problems. */
function bound(type: string, json: unknown, def?: string): Value | string[] {
  const src = `let probe = 1;\n${scene(`x: ${type}${def ? ` = ${def}` : ''}`, 'x')}`;
  const c = compile(src, { args: { x: json } });
  if (c.argProblems.length) return c.argProblems.map((p) => `${p.path}: ${p.message}`);
  assert.ok(c.program, JSON.stringify(c.diagnostics));
  return c.program.sceneAt(0).value;
}
const num = (value: number, unit: string | null = null) => ({ kind: 'number', value, unit });

function refused(type: string, json: unknown, def?: string): string {
  const r = bound(type, json, def);
  assert.ok(Array.isArray(r), `${type} took ${JSON.stringify(json)}`);
  assert.equal(r.length, 1, r.join('\n'));
  assert.match(r[0]!, /^args\.x/);
  return r[0]!;
}

test('String: a JSON string, drawn exactly as given (quotes, backslashes, braces, comments, emoji)', () => {
  const name = 'O"Brien \\ }; compose [] //';
  assert.deepEqual(bound('String', name), { kind: 'string', raw: `"${name}"` });
  assert.deepEqual(bound('String', 'trailing \\'), { kind: 'string', raw: '"trailing \\"' });
  assert.deepEqual(bound('String', '🎬 é'), { kind: 'string', raw: '"🎬 é"' });
  assert.match(refused('String', 42), /must be a string.*got the number 42/);
});

test('Number and Int: a JSON number (Int: an integer)', () => {
  assert.deepEqual(bound('Number', 2.5), num(2.5));
  assert.deepEqual(bound('Int', -3), num(-3));
  assert.match(refused('Number', '2'), /must be a number.*got the string "2"/);
  assert.match(refused('Int', 2.5), /must be an integer/);
});

test('Bool: true or false', () => {
  assert.deepEqual(bound('Bool', false), { kind: 'bool', value: false });
  assert.match(refused('Bool', 'true'), /must be true or false/);
});

test('unit types: a string of ONE literal with a unit of the type dimension, read by the lexer', () => {
  assert.deepEqual(bound('Duration', '2s'), num(2, 's'));
  assert.deepEqual(bound('Duration', '-300ms'), num(-300, 'ms'));
  assert.deepEqual(bound('Length', '300px'), num(300, 'px'));
  assert.deepEqual(bound('Angle', '30deg'), num(30, 'deg'));
  assert.deepEqual(bound('Percent', '50%'), num(50, 'percent'));
  assert.deepEqual(bound('Length', '1_000.5px'), num(1000.5, 'px'));
  // a wrong unit, no unit, a JSON number, an expression, spaces, a comment: each refused
  assert.match(refused('Duration', '300px'), /Time literal \(Duration\).*units ms, us, ns, s/);
  assert.match(refused('Duration', '2'), /Time literal/);
  assert.match(refused('Duration', 2), /got the number 2/);
  refused('Duration', '1s + 1s');
  refused('Duration', ' 2s');
  refused('Duration', '2s // x');
  refused('Duration', '(2s)');
  refused('Length', '- 3px');
});

test('Color: a colour literal as the language writes it', () => {
  assert.deepEqual(bound('Color', '#ff3399'), { kind: 'color', form: 'hex', digits: 'ff3399' });
  assert.deepEqual(bound('Color', '#ff339980'), { kind: 'color', form: 'hex', digits: 'ff339980' });
  assert.deepEqual(bound('Color', 'oklch(0.7, 0.1, 200)'), {
    kind: 'color',
    form: 'oklch',
    l: num(0.7),
    c: num(0.1),
    h: num(200),
  });
  assert.deepEqual(bound('Color', 'oklab(0.5, -0.1, 0.1)'), {
    kind: 'color',
    form: 'oklab',
    l: num(0.5),
    a: num(-0.1),
    b: num(0.1),
  });
  assert.match(refused('Color', 'red'), /colour literal/);
  refused('Color', '#ff33f');
  assert.equal((bound('Color', '#f3f8') as Value).kind, 'color');
  refused('Color', '#ff339');
  refused('Color', 'oklch(0.7, 0.1)');
  refused('Color', 'oklch(0.7, 0.1, a)');
  refused('Color', 0xff3399);
});

test('List<T>: an array of T, each element checked at its index', () => {
  assert.deepEqual(bound('List<Length>', ['1px', '2px']), { kind: 'array', elems: [num(1, 'px'), num(2, 'px')] });
  assert.match(refused('List<Number>', [1, 'two']), /^args\.x\[1\]: /);
  assert.match(refused('List<Number>', { 0: 1 }), /must be a list of Number/);
});

test('records: an object with exactly the declared fields', () => {
  assert.deepEqual(bound('{first: String, age: Int}', { age: 40, first: 'Ana' }), {
    kind: 'record',
    fields: [
      { name: 'first', value: { kind: 'string', raw: '"Ana"' } },
      { name: 'age', value: num(40) },
    ],
  });
  const r = bound('{first: String, age: Int}', { first: 'Ana', agee: 40 });
  assert.deepEqual(r, [
    "args.x.agee: args.x.agee is not a field of {first: String, age: Int}; did you mean 'age'?",
    'args.x.age: args.x.age is missing (Int)',
  ]);
});

test('a type that cannot be passed as data is refused for that parameter, naming it', () => {
  assert.match(refused('Frame', 1, 'compose []'), /type 'Frame' cannot be passed as an argument/);
  assert.match(refused('(Number, Number)', [1, 2], 'probe'), /a tuple type \(\(Number, Number\)\)/);
  assert.match(refused('(Number) -> Number', 1, 'probe'), /a function type/);
  assert.match(refused('List<Frame>', [], '[]'), /type 'Frame'/);
});

test('limits: strings, lists and the whole args at and past their edges', () => {
  assert.equal((bound('String', 'a'.repeat(MAX_ARG_STRING)) as Value).kind, 'string');
  assert.match(refused('String', 'a'.repeat(MAX_ARG_STRING + 1)), /4097 characters; .* at most 4096/);
  assert.equal((bound('List<Number>', new Array(MAX_ARG_LIST).fill(1)) as Value).kind, 'array');
  assert.match(refused('List<Number>', new Array(MAX_ARG_LIST + 1).fill(1)), /1001 elements; .* at most 1000/);
  const src = scene('x: List<String> = []', 'x');
  // {"x":["aaa…", …]}: 8 bytes around the list, each element its characters plus 3 (quotes, comma) but the last 2
  const fill = (bytes: number) => {
    const el = 2000;
    const n = Math.floor((bytes - 8 + 1) / (el + 3));
    const list = new Array(n).fill('a'.repeat(el));
    const used = JSON.stringify({ x: list }).length;
    list.push('a'.repeat(bytes - used - 3));
    return { x: list };
  };
  const at = fill(MAX_ARGS_BYTES);
  assert.equal(JSON.stringify(at).length, MAX_ARGS_BYTES);
  assert.deepEqual(compile(src, { args: at }).argProblems, []);
  const past = fill(MAX_ARGS_BYTES + 1);
  assert.deepEqual(
    compile(src, { args: past }).argProblems.map((p) => p.message),
    [`args is ${MAX_ARGS_BYTES + 1} bytes of JSON; at most ${MAX_ARGS_BYTES} are accepted`],
  );
  // bytes, not characters: an é is two
  const accents = { x: ['é'.repeat((MAX_ARGS_BYTES - 10) / 2 + 1)] };
  assert.equal(compile(src, { args: accents }).argProblems[0]?.path, 'args');
});

test('problems: unknown names with did-you-mean, missing required, args on a scene without parameters', () => {
  const src = scene('name: String, accent: Color = #ff3399', 'name');
  assert.deepEqual(compile(src, { args: { name: 'a', acent: '#00ff00' } }).argProblems, [
    {
      path: 'args.acent',
      expected: "one of the parameters of scene 'card': name, accent",
      given: 'the string "#00ff00"',
      message: "args.acent is not a parameter of scene 'card'; did you mean 'accent'?",
    },
  ]);
  assert.deepEqual(
    compile(src, { args: { accent: '#00ff00' } }).argProblems.map((p) => [p.path, p.given]),
    [['args.name', 'nothing']],
  );
  const none = compile(scene(''), { args: { name: 'x' } });
  assert.deepEqual(
    none.argProblems.map((p) => p.message),
    ["scene 'card' has no parameters, so it takes no args"],
  );
  assert.equal(none.program, null);
  assert.deepEqual(
    compile('let x = 1;', { args: { a: 1 } }).argProblems.map((p) => p.message),
    ['args were given, but the source declares no scene to take them'],
  );
  assert.equal(compile(src, { args: [] as unknown }).argProblems[0]?.path, 'args');
});

test('which scene renders: without args the first all-default scene; with args the first whose required ones they give', () => {
  const src = [
    'scene plain() -> Frame { "plain" }',
    'scene card(name: String) -> Frame { name }',
    'scene badge(name: String, n: Number) -> Frame { n }',
  ].join('\n');
  const value = (args?: unknown) => compile(src, { args }).program?.sceneAt(0).value;
  assert.deepEqual(value(), { kind: 'string', raw: '"plain"' });
  assert.deepEqual(value({}), { kind: 'string', raw: '"plain"' });
  assert.deepEqual(value({ name: 'Ana' }), { kind: 'string', raw: '"Ana"' });
  assert.deepEqual(value({ name: 'Ana', n: 3 }), num(3));
  assert.equal(compile(src, { args: { name: 'Ana' } }).scene?.name, 'card');
  // a scene with required parameters alone renders only with args
  const only = 'scene card(name: String) -> Frame { name }';
  assert.deepEqual(
    compile(only).diagnostics.map((d) => d.code),
    ['REN001'],
  );
  assert.equal(compile(only, { args: { name: 'Ana' } }).ok, true);
});

test("an argument named duration sets the scene's duration", () => {
  const c = compile(scene('duration: Duration = 2s', 'compose []'), { args: { duration: '500ms' } });
  assert.equal(c.program?.durationSeconds, 0.5);
});

test('the signature and a JSON Schema (2020-12) that accepts what the binder accepts and refuses what it refuses', () => {
  const src = scene(
    'name: String, accent: Color = #ff3399, hold: Duration = 2s, size: Percent = 50%, big: Bool = false, n: Int = 3, tags: List<String> = ["a"], who: {first: String} = {first: "x"}, f: Frame = compose []',
  );
  const d = describeScene(src);
  assert.equal(d.scene, null, 'no all-default scene: nothing renders without args');
  const { scene: s } = describeScene(src, { name: 'Ana' });
  assert.ok(s);
  assert.deepEqual(
    s.params.map((p) => [p.name, p.type, p.default, p.required]),
    [
      ['name', 'String', null, true],
      ['accent', 'Color', '#ff3399', false],
      ['hold', 'Duration', '2s', false],
      ['size', 'Percent', '50%', false],
      ['big', 'Bool', false, false],
      ['n', 'Int', 3, false],
      ['tags', 'List<String>', ['a'], false],
      ['who', '{first: String}', { first: 'x' }, false],
      ['f', 'Frame', null, false],
    ],
  );
  assert.equal(s.schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.deepEqual(s.schema.required, ['name']);
  const validate = new Ajv2020({ strict: true }).compile(s.schema);
  const cases: [unknown, boolean][] = [
    [{ name: 'Ana' }, true],
    [{ name: 'Ana', accent: 'oklch(0.7, 0.1, 200)', hold: '-300ms', size: '5%', tags: [], who: { first: 'y' } }, true],
    [{}, false],
    [{ name: 1 }, false],
    [{ name: 'Ana', hold: '2px' }, false],
    [{ name: 'Ana', accent: 'red' }, false],
    [{ name: 'Ana', n: 2.5 }, false],
    [{ name: 'Ana', nme: 'x' }, false],
    [{ name: 'Ana', f: 1 }, false],
    [{ name: 'Ana', who: { first: 'y', x: 1 } }, false],
    [{ name: 'a'.repeat(MAX_ARG_STRING + 1) }, false],
  ];
  for (const [args, ok] of cases) {
    assert.equal(validate(args), ok, `schema on ${JSON.stringify(args)}`);
    assert.equal(describeScene(src, args).problems.length === 0, ok, `binder on ${JSON.stringify(args)}`);
  }
});

test('a CompileCache shares the parse and check of one source between compiles that differ only in args', () => {
  const cache = new CompileCache(2);
  const src = scene('name: String = "Ana"', 'name');
  const a = compile(src, { args: { name: 'Bo' }, cache });
  const b = compile(src, { args: { name: 'Cy' }, cache });
  assert.equal(cache.hits, 1);
  assert.deepEqual(a.program?.sceneAt(0).value, { kind: 'string', raw: '"Bo"' });
  assert.deepEqual(b.program?.sceneAt(0).value, { kind: 'string', raw: '"Cy"' });
  // a source that does not parse is kept too, and answers its diagnostic each time
  const bad = 'scene s( -> Frame { 1 }';
  assert.deepEqual(compile(bad, { cache }).diagnostics, compile(bad).diagnostics);
  assert.deepEqual(compile(bad, { cache }).diagnostics, compile(bad).diagnostics);
  assert.equal(cache.hits, 2);
  // the least recently used source goes when a third comes
  compile(scene(''), { cache });
  compile(src, { args: { name: 'Di' }, cache });
  assert.equal(cache.hits, 2);
});
