// Argument readers (viewer.md §1.3, stdlib.md §5 rules): named fields go into a map where the LAST duplicate
// wins; positional fields (name "") form a list in order. A method call's receiver is positional 0.
import type { ConstructedV, Val } from './value.js';

export interface Args {
  named: Map<string, Val>;
  pos: Val[];
}

const argCache = new WeakMap<object, Args>();

export function isNode(v: Val | undefined | null, name?: string): v is ConstructedV {
  return !!v && v.kind === 'constructed' && (name === undefined || v.name === name);
}

export function args(node: ConstructedV): Args {
  let a = argCache.get(node);
  if (a) return a;
  a = { named: new Map(), pos: [] };
  for (const f of node.fields) {
    if (f.name === '') a.pos.push(f.value);
    else a.named.set(f.name, f.value);
  }
  argCache.set(node, a);
  return a;
}

/** A number's value (unit ignored) or the default when missing / not a finite number. */
export function num(v: Val | undefined, def: number): number {
  if (v && v.kind === 'number' && Number.isFinite(v.value)) return v.value;
  return def;
}

export function isNum(v: Val | undefined): v is Extract<Val, { kind: 'number' }> {
  return !!v && v.kind === 'number' && Number.isFinite(v.value);
}

/** Strip exactly one leading and one trailing `"` (viewer.md §1.3). */
export function str(v: Val | undefined): string | null {
  if (!v || v.kind !== 'string') return null;
  let s = v.raw;
  if (s.startsWith('"')) s = s.slice(1);
  if (s.endsWith('"')) s = s.slice(0, -1);
  return s;
}

/** svg() sources: a triple-quoted string loses its three-quote delimiters instead. */
export function svgStr(v: Val | undefined): string | null {
  if (!v || v.kind !== 'string') return null;
  const s = v.raw;
  if (s.length >= 6 && s.startsWith('"""') && s.endsWith('"""')) return s.slice(3, -3);
  return str(v);
}

/** vec3(x, y, z), positional only (named forms read as zeros). */
export function vec3(v: Val | undefined, def: [number, number, number]): [number, number, number] {
  if (!isNode(v, 'vec3')) return def;
  const p = args(v).pos;
  return [num(p[0], 0), num(p[1], 0), num(p[2], 0)];
}

/** vec2: positional or x:/y: (named wins). Null when not a vec2. */
export function vec2(v: Val | undefined): [number, number] | null {
  if (!isNode(v, 'vec2')) return null;
  const a = args(v);
  return [num(a.named.get('x') ?? a.pos[0], 0), num(a.named.get('y') ?? a.pos[1], 0)];
}

/** translate: px → world via p2w, anything else is already world units. */
export function worldLen(v: Val | undefined, p2w: number): number {
  if (!isNum(v)) return 0;
  return v.unit === 'px' ? v.value * p2w : v.value;
}

/** rotate: deg → radians, anything else is radians (0.5turn is 0.5 rad: QUIRK). */
export function angle(v: Val | undefined): number {
  if (!isNum(v)) return 0;
  return v.unit === 'deg' ? (v.value * Math.PI) / 180 : v.value;
}

/** image(path) / image(path).fit(..) / image(path).as_texture(..) → the path, else null. */
export function imagePath(v: Val | undefined, allowAsTexture = true): string | null {
  let cur = v;
  for (let i = 0; i < 8 && cur; i++) {
    if (!isNode(cur)) return null;
    if (cur.name === 'image') return str(args(cur).pos[0]);
    if (cur.name === 'fit' || (allowAsTexture && cur.name === 'as_texture')) {
      cur = args(cur).pos[0];
      continue;
    }
    return null;
  }
  return null;
}

/** Every image path referenced anywhere in a value tree. */
export function collectImagePaths(v: Val, out: Set<string> = new Set()): Set<string> {
  const walk = (x: Val): void => {
    if (x.kind === 'constructed') {
      if (x.name === 'image') {
        const p = str(args(x).pos[0]);
        if (p) out.add(p);
      }
      for (const f of x.fields) walk(f.value);
    } else if (x.kind === 'array') for (const e of x.elems) walk(e);
    else if (x.kind === 'record') for (const f of x.fields) walk(f.value);
  };
  walk(v);
  return out;
}
