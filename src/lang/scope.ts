// Scopes of the evaluator: persistent linked lists, so a lambda captures a snapshot of every
// visible binding for free (stdlib.md §2.7) and later bindings are never seen.

import type { Block, Expr } from './ast.js';
import type { Value } from './value.js';

export interface Env {
  readonly name: string;
  readonly value: Value;
  readonly parent: Env | null;
}

export function lookup(env: Env | null, name: string): Value | undefined {
  for (let e = env; e; e = e.parent) if (e.name === name) return e.value;
  return undefined;
}

export function bind(env: Env | null, name: string, value: Value): Env {
  return { name, value, parent: env };
}

/** What calling a lambda value needs; kept beside the value, not in it, so values stay plain JSON. */
export interface Closure {
  params: { name: string; default: Expr | null }[];
  body: Block;
  env: Env | null;
}

export const closures = new WeakMap<Value, Closure>();
