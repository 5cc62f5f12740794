// The one table of the language's units (language.md §1.6, §6.4; stdlib.md §2.2). The lexer, the
// checker, the evaluator, the value schema and the CLI all read units from here, so a unit is
// added or changed in this file only.

/** What a unit measures; the checker's category names (they appear in UNT001/UNT002 messages). */
export type Dimension = 'Time' | 'Frequency' | 'Angle' | 'Length' | 'Percent' | 'Tempo' | 'Bars' | 'Beats';

interface UnitDef {
  /** the unit's tag in values and on the wire (stdlib.md §5) */
  readonly tag: string;
  readonly dimension: Dimension;
  /**
   * Size of one unit in its dimension's base unit (s, hz, rad, px, ...), as the exact ratio
   * num / den. A ratio rather than one number because seconds are computed by dividing
   * (500ms → 500 / 1e3, as the sampler does), which is not always bit-equal to multiplying by 1e-3.
   */
  readonly size: readonly [num: number, den: number];
}

/** Keyed by the suffix as written in source. */
const TABLE = {
  s: { tag: 's', dimension: 'Time', size: [1, 1] },
  ms: { tag: 'ms', dimension: 'Time', size: [1, 1e3] },
  us: { tag: 'us', dimension: 'Time', size: [1, 1e6] },
  ns: { tag: 'ns', dimension: 'Time', size: [1, 1e9] },
  hz: { tag: 'hz', dimension: 'Frequency', size: [1, 1] },
  khz: { tag: 'khz', dimension: 'Frequency', size: [1000, 1] },
  deg: { tag: 'deg', dimension: 'Angle', size: [Math.PI, 180] },
  rad: { tag: 'rad', dimension: 'Angle', size: [1, 1] },
  turn: { tag: 'turn', dimension: 'Angle', size: [2 * Math.PI, 1] },
  px: { tag: 'px', dimension: 'Length', size: [1, 1] },
  '%': { tag: 'percent', dimension: 'Percent', size: [1, 1] },
  bpm: { tag: 'bpm', dimension: 'Tempo', size: [1, 1] },
  bars: { tag: 'bars', dimension: 'Bars', size: [1, 1] },
  beats: { tag: 'beats', dimension: 'Beats', size: [1, 1] },
} as const satisfies Record<string, UnitDef>;

/** A unit suffix as written in source (`%`, not `percent`). */
export type UnitSuffix = keyof typeof TABLE;
/** A unit tag as stored in values (`percent`, not `%`). */
export type Unit = (typeof TABLE)[UnitSuffix]['tag'];

const DEFS: readonly UnitDef[] = Object.values(TABLE);

/** Every unit tag, in table order (the value schema's enum). */
export const UNIT_TAGS = DEFS.map((d) => d.tag) as readonly Unit[];

/** Every suffix, longest first, so that the lexer's first match is the longest (`ms` before `s`). */
export const UNIT_SUFFIXES: readonly UnitSuffix[] = (Object.keys(TABLE) as UnitSuffix[]).sort(
  (a, b) => b.length - a.length,
);

/** The unit the checker suggests for each dimension (UNT002). */
export const CANONICAL_SUFFIX: Readonly<Record<Dimension, UnitSuffix>> = {
  Time: 's',
  Frequency: 'hz',
  Angle: 'deg',
  Length: 'px',
  Percent: '%',
  Tempo: 'bpm',
  Bars: 'bars',
  Beats: 'beats',
};

/**
 * Number-family type annotations and the dimension each requires (language.md §6.4);
 * null: the type requires a unitless number.
 */
export const NUMBER_TYPES: ReadonlyMap<string, Dimension | null> = new Map<string, Dimension | null>([
  ['Duration', 'Time'],
  ['Time', 'Time'],
  ['Angle', 'Angle'],
  ['Length', 'Length'],
  ['Pixels', 'Length'],
  ['Percent', 'Percent'],
  ['Frequency', 'Frequency'],
  ['Tempo', 'Tempo'],
  ['Bars', 'Bars'],
  ['Beats', 'Beats'],
  ['Number', null],
  ['Int', null],
  ['Float', null],
]);

interface TagInfo {
  dimension: Dimension;
  /** size[0] / size[1], precomputed for conversions */
  factor: number;
}
// Plain objects rather than Maps: looked up for every keyframe time of every frame.
const BY_TAG: { readonly [tag: string]: TagInfo | undefined } = Object.fromEntries(
  DEFS.map((d) => [d.tag, { dimension: d.dimension, factor: d.size[0] / d.size[1] }]),
);
const TIME_SIZE: { readonly [tag: string]: UnitDef['size'] | undefined } = Object.fromEntries(
  DEFS.filter((d) => d.dimension === 'Time').map((d) => [d.tag, d.size]),
);
/** The time unit of exactly one second: the common case, which needs no lookup. */
const SECOND = DEFS.find((d) => d.dimension === 'Time' && d.size[0] === d.size[1])!.tag;

/** The value tag of a source suffix (`'%'` → `'percent'`); null for no suffix or an unknown one. */
export function unitTag(suffix: string): Unit | null {
  return suffix === '' ? null : (((TABLE as Record<string, UnitDef>)[suffix]?.tag as Unit | undefined) ?? null);
}

/** Dimension of a source suffix (`'ms'` → `'Time'`); undefined for an unknown suffix. */
export function suffixDimension(suffix: string): Dimension | undefined {
  return (TABLE as Record<string, UnitDef>)[suffix]?.dimension;
}

/** Dimension of a value's unit tag; null for a unitless number. */
export function unitDimension(unit: Unit | null): Dimension | null {
  return unit === null ? null : (BY_TAG[unit]?.dimension ?? null);
}

/** Converts `value` from unit `from` into unit `to`; null when the dimensions differ (or one side has no unit). */
export function convertUnit(value: number, from: Unit | null, to: Unit | null): number | null {
  if (from === to) return value;
  if (from === null || to === null) return null;
  const a = BY_TAG[from];
  const b = BY_TAG[to];
  if (!a || !b || a.dimension !== b.dimension) return null;
  return (value * a.factor) / b.factor;
}

/** Seconds of a time value (stdlib.md §2.2: a non-time unit or none is read as seconds as it is). */
export function toSeconds(v: { value: number; unit: Unit | null }): number {
  if (v.unit === null || v.unit === SECOND) return v.value;
  const size = TIME_SIZE[v.unit];
  return size === undefined ? v.value : (v.value * size[0]) / size[1];
}

/** A unit as diagnostics name it (`<unitless>` for none). */
export function unitLabel(u: Unit | null): string {
  return u ?? '<unitless>';
}
