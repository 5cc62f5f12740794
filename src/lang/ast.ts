// AST of .cm sources (language.md §5.1). Every node has a [start, end) span in UTF-16 offsets
// of the BOM-stripped source; diagnostics convert spans to line / byte column.

import type { Unit } from './units.js';

export interface Span {
  start: number;
  end: number;
}

export type Type =
  | ({ t: 'simple'; name: string; args: Type[] } & Span)
  | ({ t: 'tuple'; elems: Type[] } & Span)
  | ({ t: 'record'; fields: { name: string; type: Type }[] } & Span)
  | ({ t: 'function'; params: Type[]; ret: Type } & Span);

export interface Param extends Span {
  name: string;
  nameSpan: Span;
  type: Type;
  default: Expr | null;
}

export interface LetDecl extends Span {
  name: string;
  nameSpan: Span;
  type: Type | null;
  value: Expr;
}

export interface Block extends Span {
  k: 'block';
  lets: LetDecl[];
  result: Expr;
}

export interface Arg extends Span {
  name: string | null;
  value: Expr;
}

export type Pattern =
  ({ p: 'literal'; lit: Expr } & Span) | ({ p: 'ident'; name: string } & Span) | ({ p: 'wildcard' } & Span);

/**
 * A postfix chain of plain names (`text.glyph`, `easing.out_cubic`): its root identifier and its
 * dotted text up to and including this node. Made once by the parser, so the evaluator's
 * constructed names are the same string every frame (no concatenation, hashes cached).
 */
export interface NamePath {
  root: string;
  text: string;
}

export type Expr =
  | ({ k: 'number'; digits: string; unit: string; tag: Unit | null; value: number } & Span)
  | ({ k: 'string'; raw: string; triple: boolean } & Span)
  | ({ k: 'bool'; value: boolean } & Span)
  | ({ k: 'hex'; digits: string } & Span)
  | ({ k: 'colorfn'; form: 'oklch' | 'oklab' | 'srgb'; args: [Expr, Expr, Expr] } & Span)
  | ({ k: 'ident'; name: string } & Span)
  | ({ k: 'paren'; inner: Expr } & Span)
  | ({ k: 'binary'; op: string; left: Expr; right: Expr } & Span)
  | ({ k: 'unary'; op: '-' | '!'; operand: Expr } & Span)
  | ({ k: 'call'; callee: Expr; args: Arg[] } & Span)
  | ({ k: 'method'; receiver: Expr; name: string; nameSpan: Span; args: Arg[]; path: NamePath | null } & Span)
  | ({ k: 'field'; receiver: Expr; name: string; nameSpan: Span; path: NamePath | null } & Span)
  | ({ k: 'index'; receiver: Expr; index: Expr } & Span)
  | ({ k: 'if'; cond: Expr; then: Block; else: Block | Expr | null } & Span)
  | ({ k: 'match'; subject: Expr; arms: { pattern: Pattern; body: Expr }[] } & Span)
  | ({ k: 'lambda'; params: Param[]; ret: Type | null; body: Block } & Span)
  | ({
      k: 'animate';
      keyframes: { at: Expr; value: Expr }[];
      opts: { name: string; nameSpan: Span; value: Expr }[] | null;
    } & Span)
  | ({ k: 'compose'; layers: Expr[] } & Span)
  | ({ k: 'record'; fields: { name: string; nameSpan: Span; value: Expr }[] } & Span)
  | ({ k: 'array'; elems: Expr[] } & Span)
  | Block;

export type TopDecl =
  | ({ d: 'import'; path: string[]; glob: boolean; alias: string | null; local: string | null; localSpan: Span } & Span)
  | ({ d: 'let'; decl: LetDecl } & Span)
  | ({ d: 'export'; decl: LetDecl } & Span)
  | ({
      d: 'callable';
      kind: 'scene' | 'component' | 'filter';
      name: string;
      nameSpan: Span;
      params: Param[];
      ret: Type;
      body: Block;
    } & Span);

export interface Program {
  runner: { raw: string; text: string; span: Span } | null;
  decls: TopDecl[];
}
