// Public entry of the .cm language (docs/architecture.md). No Node-only APIs.

import type { Program as Ast, TopDecl } from './ast.js';
import { Checker } from './checker.js';
import { envelope, SourceMap, hasErrors, type Diagnostic, type Envelope } from './diagnostics.js';
import { Evaluator, type Binding } from './evaluator.js';
import { libraryWarnings } from './library-warnings.js';
import { MAX_VALUE_BYTES, MAX_VALUE_DEPTH, MAX_VALUE_NODES, measureValue } from './limits.js';
import { drawingLimitHit } from './drawing-limits.js';
import { parse } from './parser.js';
import { newestRunner, runnerError } from './runners.js';
import { toSeconds, unitDimension } from './units.js';
import { NIL, type Value } from './value.js';
export { typedArg } from './arg-text.js';
import { bindArgs, signatureOf, type ArgProblem, type SceneSignature } from './scene-args.js';
import { argsSchema } from './scene-args-schema.js';

export type { Diagnostic, Envelope, Severity } from './diagnostics.js';
export { formatJobMessage, formatHuman } from './diagnostics.js';
export type { Value, Unit, Field, ColorValue } from './value.js';
export { valueSchema, namedField, positionalField, stripQuotes } from './value.js';
export { designFrame, type DesignFrame } from './frame.js';
export { imagePaths } from './images.js';
export { RUNNERS, availableVersions, newestRunner } from './runners.js';
export { colorToLinear, colorToSrgb8, oklchToLinearSrgb, oklabToLinearSrgb, linearToSrgb } from './color.js';
export {
  UNIT_TAGS,
  suffixDimension,
  unitDimension,
  unitTag,
  toSeconds,
  convertUnit,
  type Dimension,
  type UnitSuffix,
} from './units.js';

export {
  MAX_ARGS_BYTES,
  MAX_ARG_LIST,
  MAX_ARG_STRING,
  closestName,
  type ArgProblem,
  type Json,
  type SceneParam,
  type SceneSignature,
} from './scene-args.js';

export interface Program {
  /** the value of the rendered binding at time t (seconds), every time signal resolved */
  sceneAt(t: number): SceneAt;
  /** the rendered scene's `duration` parameter default in seconds, else 6 */
  readonly durationSeconds: number;
  /** the runner version that applies (pin, else newest available) */
  readonly runner: string;
}

/** One evaluation of the rendered binding. */
export interface SceneAt {
  value: Value;
  diagnostics: Diagnostic[];
  /** no time signal was read: the value is the same at every t (a renderer may evaluate a clip once) */
  timeFree: boolean;
  /** nodes of the value (shared subtrees counted per use): the evaluation's size, for a job's work budget */
  nodes: number;
  /** evaluation steps taken (at most STEP_BUDGET, EVL006): the evaluation's cost, for a job's admission */
  steps: number;
}

export interface Compiled {
  ok: boolean;
  diagnostics: Diagnostic[];
  runner: string;
  program: Program | null;
  /** the rendered declaration's signature when it is a scene, component or filter (null: a let, or nothing) */
  scene: SceneSignature | null;
  /** what is wrong with the options' `args` (then `ok` is false and `program` null); empty without args */
  argProblems: ArgProblem[];
}

export interface CompileOptions {
  /** the rendered scene's arguments, a JSON object (docs/language.md "Scene arguments") */
  args?: unknown;
  /** where the parse and check of recent sources are kept (a render thread's), shared by compiles of one source */
  cache?: CompileCache;
}

const DEFAULT_DURATION = 6;

/** Strips a leading UTF-8 BOM (language.md §1.1); positions are counted after it. */
function stripBom(source: string): string {
  return source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
}

/**
 * Which binding renders (docs/compatibility.md): the first all-default `scene`; else the first
 * all-default component/filter; else the first binding (let/export). null: nothing to render.
 */
function renderedDecl(bindings: Binding[]): TopDecl | null {
  const scene = bindings.find((b) => b.decl.d === 'callable' && b.decl.kind === 'scene');
  if (scene) return scene.decl;
  const callable = bindings.find((b) => b.decl.d === 'callable');
  if (callable) return callable.decl;
  return bindings[0]?.decl ?? null;
}

function durationOf(b: Binding | undefined): number {
  const d = b?.params?.get('duration');
  if (!d || d.kind !== 'number') return DEFAULT_DURATION;
  if (d.unit !== null && unitDimension(d.unit) !== 'Time') return DEFAULT_DURATION;
  const s = toSeconds(d);
  return Number.isFinite(s) && s > 0 ? s : DEFAULT_DURATION;
}

/** The size limit a rendered value passes (EVL008: nodes or depth; EVL013: JSON characters), or null; its nodes. */
function measured(v: Value): { error: { code: 'EVL008' | 'EVL013'; message: string } | null; nodes: number } {
  const m = measureValue(v, { nodes: MAX_VALUE_NODES, depth: MAX_VALUE_DEPTH, bytes: MAX_VALUE_BYTES });
  const fail = (code: 'EVL008' | 'EVL013', message: string) => ({ error: { code, message }, nodes: m.nodes });
  if (m.nodes > MAX_VALUE_NODES) return fail('EVL008', `scene value is too large (more than ${MAX_VALUE_NODES} nodes)`);
  if (m.depth > MAX_VALUE_DEPTH)
    return fail('EVL008', `scene value is nested too deeply (more than ${MAX_VALUE_DEPTH} levels)`);
  if (m.bytes > MAX_VALUE_BYTES)
    return fail(
      'EVL013',
      `scene value is too large to send (more than ${MAX_VALUE_BYTES} characters of JSON, each use of a string counted)`,
    );
  return { error: null, nodes: m.nodes };
}
const tooBig = (v: Value): boolean => measured(v).error !== null;
export {
  MAX_GLYPH_OUTLINES,
  MAX_GLYPH_VERTICES,
  glyphVertexBound,
  MAX_PATH_POINTS,
  MAX_METABALLS,
  MAX_SHAPES,
} from './drawing-limits.js';
export { STEP_BUDGET, MAX_VALUE_BYTES } from './limits.js';

type BoundValues = { decl: TopDecl; values: ReadonlyMap<string, Value> } | undefined;

class CompiledProgram implements Program {
  constructor(
    private ast: Ast,
    private sm: SourceMap,
    private decl: TopDecl,
    readonly durationSeconds: number,
    readonly runner: string,
    private args: BoundValues,
  ) {}

  sceneAt(t: number): SceneAt {
    const ev = new Evaluator(this.sm, t);
    const { bindings, diagnostics } = ev.run(this.ast, this.args);
    const b = bindings.find((x) => x.decl === this.decl);
    const value = b?.value ?? NIL;
    const { error: size, nodes } = measured(value);
    const timeFree = !ev.usedTime;
    const steps = ev.stepsTaken;
    const hit: { code: string; message: string; help: string } | null = size
      ? {
          ...size,
          help:
            size.code === 'EVL013'
              ? `keep the rendered value under ${MAX_VALUE_BYTES} characters of JSON: a long string used many times counts at every use`
              : 'the rendered value must stay small and shallow enough to send to the viewer every frame',
        }
      : drawingLimitHit(value);
    if (hit) {
      const d = this.decl;
      const span = d.d === 'callable' ? d.nameSpan : d.d === 'import' ? d : d.decl.nameSpan;
      return {
        value: NIL,
        diagnostics: [
          ...diagnostics,
          this.sm.diag(span.start, span.end, {
            code: hit.code,
            message: hit.message,
            help: hit.help,
            repair: { id: 'simplify-source', summary: 'Reduce the amount of work or nesting the source asks for.' },
          }),
        ],
        timeFree,
        nodes,
        steps,
      };
    }
    return { value, diagnostics, timeFree, nodes, steps };
  }
}

const PAR_HELP = 'fix the syntax error first; the checks only run on a clean parse';

/** Parses, checks, resolves the runner pin, binds `options.args` and evaluates once at t = 0. Never throws. */
export function compile(source: string, options: CompileOptions = {}): Compiled {
  try {
    return compileInner(source, options.args, options.cache);
  } catch (e) {
    // defensive: an internal bug must still come back as a diagnostic, never as a throw
    const sm = new SourceMap(String(source ?? ''));
    const d = sm.diag(0, 0, {
      code: 'LWR000',
      severity: 'error',
      message: `internal error while compiling: ${e instanceof Error ? e.message : String(e)}`,
      help: 'this is a bug in cmrender; please report it with the source',
      repair: { id: 'report-bug', summary: 'Report the source that triggers this error.' },
    });
    return { ok: false, diagnostics: [d], runner: newestRunner(), program: null, scene: null, argProblems: [] };
  }
}

/** A source parsed and checked (the runner pin, the checker), before any args or evaluation. */
type Checked =
  | { ok: false; failed: Compiled }
  | { ok: true; text: string; sm: SourceMap; ast: Ast; diagnostics: readonly Diagnostic[]; runner: string };

/**
 * The parse and check of recent sources, so compiles of one source that differ only in their args (a thread's jobs
 * rendering one scene for many people) parse and check it once. Keyed by the text itself; least recently used out.
 */
export class CompileCache {
  private readonly entries = new Map<string, Checked>();
  constructor(private readonly size = 8) {}
  /** compiles that found their source here (for tests and benchmarks) */
  hits = 0;

  get(text: string): Checked | undefined {
    const c = this.entries.get(text);
    if (c) {
      this.hits++;
      this.entries.delete(text);
      this.entries.set(text, c);
    }
    return c;
  }

  set(text: string, c: Checked): void {
    this.entries.set(text, c);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
  }
}

function checkedSource(text: string): Checked {
  const sm = new SourceMap(text);
  const parsed = parse(text);
  if (!parsed.ok) {
    const e = parsed.error;
    const d = sm.diag(e.start, e.end, {
      code: e.code,
      message: e.message,
      expected: e.expected,
      actual: e.found,
      help: e.code === 'PAR101' ? 'reduce the nesting depth of the source' : PAR_HELP,
      repair: { id: 'fix-syntax', summary: 'Resolve the syntax error reported by the parser.' },
    });
    return {
      ok: false,
      failed: { ok: false, diagnostics: [d], runner: newestRunner(), program: null, scene: null, argProblems: [] },
    };
  }
  const ast = parsed.program;
  const diagnostics: Diagnostic[] = [];

  // runner pin
  let runner = newestRunner();
  let knownPin: string | null = null;
  if (ast.runner) {
    const pin = ast.runner.text;
    const msg = runnerError(pin);
    if (msg) {
      diagnostics.push(
        sm.diag(ast.runner.span.start, ast.runner.span.end, {
          code: 'RUN001',
          message: msg,
          expected: 'a runner version this service has',
          actual: `"${pin}"`,
          help: `pin one of the available versions, or remove the pin to use the newest (${newestRunner()})`,
          fixSafety: 'local-edit',
          repair: { id: 'use-available-runner', summary: 'Pin a runner version that this service provides.' },
        }),
      );
      runner = pin;
    } else {
      runner = pin;
      knownPin = pin;
    }
  }

  diagnostics.push(...new Checker(sm, knownPin).run(ast));
  diagnostics.push(...libraryWarnings(ast, sm));
  return { ok: true, text, sm, ast, diagnostics, runner };
}

function compileInner(source: string, args: unknown, cache?: CompileCache): Compiled {
  const text = stripBom(typeof source === 'string' ? source : String(source));
  let checked = cache?.get(text);
  if (!checked) {
    checked = checkedSource(text);
    cache?.set(text, checked);
  }
  if (!checked.ok) return { ...checked.failed, diagnostics: [...checked.failed.diagnostics] };
  const { sm, ast, runner } = checked;
  const diagnostics: Diagnostic[] = [...checked.diagnostics];
  const bound = bindArgs(ast.decls, text, args);

  const withArgs: BoundValues =
    bound.decl && bound.values.size > 0 && bound.problems.length === 0
      ? { decl: bound.decl, values: bound.values }
      : undefined;
  const evaluator = new Evaluator(sm, 0);
  evaluator.warnAnimated = true;
  const ev = evaluator.run(ast, withArgs);
  diagnostics.push(...ev.diagnostics, ...evaluator.warnings);
  if (bound.problems.length > 0)
    return { ok: false, diagnostics, runner, program: null, scene: bound.signature, argProblems: bound.problems };
  const decl = withArgs ? withArgs.decl : renderedDecl(ev.bindings);
  let program: Program | null = null;
  if (!decl) {
    if (!hasErrors(ev.diagnostics)) {
      diagnostics.push(
        sm.diag(0, 0, {
          code: 'REN001',
          message: 'no scene to render',
          help: 'declare a scene whose parameters all have defaults, e.g. scene main() -> Frame { ... }',
          repair: { id: 'add-scene', summary: 'Add a scene whose parameters all have defaults.' },
        }),
      );
    }
  } else {
    program = new CompiledProgram(
      ast,
      sm,
      decl,
      durationOf(ev.bindings.find((b) => b.decl === decl)),
      runner,
      withArgs,
    );
    const b = ev.bindings.find((x) => x.decl === decl)!;
    if (tooBig(b.value) || drawingLimitHit(b.value))
      diagnostics.push(...program.sceneAt(0).diagnostics.slice(ev.diagnostics.length));
  }
  const scene = decl?.d === 'callable' ? signatureOf(decl, text) : null;
  return { ok: !hasErrors(diagnostics), diagnostics, runner, program, scene, argProblems: [] };
}

/** A source's rendered scene for `args` as data: its signature, the JSON Schema of its args, the args' problems. */
export interface SceneDescription {
  /** false: the source does not parse (nothing is known of its scenes) */
  parsed: boolean;
  scene: (SceneSignature & { schema: Record<string, unknown> }) | null;
  problems: ArgProblem[];
}

/**
 * Parses only (no check, no evaluation: cheap enough for a request's door) and binds `args` to the scene a render
 * would use. A source that does not parse has no problems here: its render fails on its own diagnostic.
 */
export function describeScene(source: string, args?: unknown): SceneDescription {
  const text = stripBom(typeof source === 'string' ? source : String(source));
  const parsed = parse(text);
  if (!parsed.ok) return { parsed: false, scene: null, problems: [] };
  const bound = bindArgs(parsed.program.decls, text, args);
  const decl = bound.decl;
  const scene =
    decl?.d === 'callable' && bound.signature ? { ...bound.signature, schema: argsSchema(decl, text) } : null;
  return { parsed: true, scene, problems: bound.problems };
}

/** The §7.1-style envelope for POST /v1/check: every diagnostic compile() reports. */
export function check(source: string, options: CompileOptions = {}): Envelope {
  return envelope(compile(source, options).diagnostics);
}
