// Hand-written recursive-descent parser (language.md §2). One syntax error stops the parse and is
// reported as PAR100 at the offending token with "expected X, found Y" wording; nesting deeper
// than MAX_DEPTH is PAR101 (so hostile inputs cannot overflow the JS stack).

import type { Arg, Block, Expr, LetDecl, NamePath, Param, Pattern, Program, Span, TopDecl, Type } from './ast.js';
import { lex, numberValue, type Token } from './lexer.js';
import { unitTag } from './units.js';

export const MAX_DEPTH = 256;

/** The nine words that are keywords wherever an expression may begin (language.md §1.4). */
export const EXPR_KEYWORDS = new Set(['if', 'match', 'animate', 'compose', 'true', 'false', 'oklch', 'oklab', 'srgb']);

export class SyntaxError_ {
  constructor(
    readonly code: 'PAR100' | 'PAR101',
    readonly message: string,
    readonly start: number,
    readonly end: number,
    readonly expected?: string,
    readonly found?: string,
  ) {}
}

export type ParseResult = { ok: true; program: Program } | { ok: false; error: SyntaxError_ };

function describe(t: Token): string {
  if (t.kind === 'eof') return 'end of input';
  if (t.kind === 'string') return t.text.length > 24 ? `string ${t.text.slice(0, 20)}…` : `string ${t.text}`;
  const s = t.text.length > 24 ? t.text.slice(0, 20) + '…' : t.text;
  return `'${s}'`;
}

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private toks: Token[]) {}

  private get tok(): Token {
    return this.toks[this.pos]!;
  }
  private peek(k = 1): Token {
    return this.toks[Math.min(this.pos + k, this.toks.length - 1)]!;
  }
  private fail(expected: string, t: Token = this.tok): never {
    if (t.kind === 'error') throw new SyntaxError_('PAR100', t.message!, t.start, t.end);
    throw new SyntaxError_(
      'PAR100',
      `syntax error: expected ${expected}, found ${describe(t)}`,
      t.start,
      t.end,
      expected,
      describe(t),
    );
  }
  private enter(): void {
    if (++this.depth > MAX_DEPTH) {
      const t = this.tok;
      throw new SyntaxError_('PAR101', `syntax error: nesting deeper than ${MAX_DEPTH} levels`, t.start, t.end);
    }
  }
  private leave(): void {
    this.depth--;
  }
  private isP(p: string): boolean {
    return this.tok.kind === 'punct' && this.tok.text === p;
  }
  private isWord(w: string): boolean {
    return this.tok.kind === 'ident' && this.tok.text === w;
  }
  private eat(p: string): boolean {
    if (this.isP(p)) {
      this.pos++;
      return true;
    }
    return false;
  }
  private expect(p: string, expected = `'${p}'`): Token {
    if (!this.isP(p)) this.fail(expected);
    return this.toks[this.pos++]!;
  }
  private expectIdent(expected = 'a name'): Token {
    if (this.tok.kind !== 'ident') this.fail(expected);
    return this.toks[this.pos++]!;
  }
  private span(start: number): Span {
    return { start, end: this.toks[this.pos - 1]!.end };
  }

  program(): Program {
    let runner: Program['runner'] = null;
    if (this.isWord('runner')) {
      this.pos++;
      if (this.tok.kind !== 'string') this.fail('a version string');
      const st = this.toks[this.pos++]!;
      this.expect(';');
      const q = st.raw ? 3 : 1;
      runner = { raw: st.text, text: st.text.slice(q, st.text.length - q), span: { start: st.start, end: st.end } };
    }
    const decls: TopDecl[] = [];
    while (this.isWord('use')) decls.push(this.importDecl());
    while (this.tok.kind !== 'eof') {
      const t = this.tok;
      if (t.kind === 'ident') {
        if (t.text === 'let' || t.text === 'export') {
          const s = t.start;
          const isExport = t.text === 'export';
          this.pos++;
          const decl = this.letRest(s, isExport);
          decls.push({ d: isExport ? 'export' : 'let', decl, ...this.span(s) });
          continue;
        }
        if (t.text === 'scene' || t.text === 'component' || t.text === 'filter') {
          decls.push(this.callable());
          continue;
        }
      }
      this.fail("'let', 'scene', 'component', 'filter', 'export' or end of input");
    }
    return { runner, decls };
  }

  private importDecl(): TopDecl {
    const s = this.tok.start;
    this.pos++;
    const path: string[] = [];
    let glob = false;
    let last = this.expectIdent('a module name');
    path.push(last.text);
    while (this.eat('.')) {
      if (this.eat('*')) {
        glob = true;
        break;
      }
      last = this.expectIdent("a module name or '*'");
      path.push(last.text);
    }
    let alias: string | null = null;
    let localSpan: Span = { start: last.start, end: last.end };
    if (this.isWord('as')) {
      this.pos++;
      const a = this.expectIdent('an alias name');
      alias = a.text;
      localSpan = { start: a.start, end: a.end };
    }
    this.expect(';', glob || alias ? "';'" : "'.', 'as' or ';'");
    const local = glob ? null : (alias ?? last.text);
    return { d: 'import', path, glob, alias, local, localSpan, ...this.span(s) };
  }

  /** after `let`/`export`: NAME (':' Type)? '=' Expr ';' */
  private letRest(s: number, needType: boolean): LetDecl {
    const nameTok = this.expectIdent('a name');
    let type: Type | null = null;
    if (needType) {
      this.expect(':');
      type = this.type();
    } else if (this.eat(':')) type = this.type();
    this.expect('=', type ? "'='" : "':' or '='");
    const value = this.expr();
    this.expect(';', "';'");
    return { name: nameTok.text, nameSpan: { start: nameTok.start, end: nameTok.end }, type, value, ...this.span(s) };
  }

  private callable(): TopDecl {
    const kt = this.toks[this.pos++]!;
    const nameTok = this.expectIdent('a name');
    const params = this.paramList('(', ')');
    this.expect('->');
    const ret = this.type();
    const body = this.block();
    return {
      d: 'callable',
      kind: kt.text as 'scene' | 'component' | 'filter',
      name: nameTok.text,
      nameSpan: { start: nameTok.start, end: nameTok.end },
      params,
      ret,
      body,
      ...this.span(kt.start),
    };
  }

  private paramList(open: string, close: string): Param[] {
    this.expect(open);
    const params: Param[] = [];
    while (!this.isP(close)) {
      const nt = this.expectIdent(`a parameter name or '${close}'`);
      this.expect(':');
      const type = this.type();
      let def: Expr | null = null;
      if (this.eat('=')) def = this.expr();
      params.push({
        name: nt.text,
        nameSpan: { start: nt.start, end: nt.end },
        type,
        default: def,
        ...this.span(nt.start),
      });
      if (!this.eat(',')) {
        if (!this.isP(close)) this.fail(def ? `',' or '${close}'` : `'=', ',' or '${close}'`);
      }
    }
    this.pos++;
    return params;
  }

  // ---- types ----
  private type(): Type {
    this.enter();
    try {
      const t = this.tok;
      const s = t.start;
      if (t.kind === 'ident') {
        this.pos++;
        const args: Type[] = [];
        if (this.isP('<')) {
          this.pos++;
          args.push(this.type());
          while (this.eat(',')) args.push(this.type());
          if (this.isP('>=')) {
            // split `>=` into `>` and `=` (language.md §1.5)
            const g = this.tok;
            this.toks[this.pos] = { kind: 'punct', text: '=', start: g.start + 1, end: g.end };
            return { t: 'simple', name: t.text, args, start: s, end: g.start + 1 };
          }
          this.expect('>', "',' or '>'");
        }
        return { t: 'simple', name: t.text, args, ...this.span(s) };
      }
      if (this.isP('{')) {
        this.pos++;
        const fields: { name: string; type: Type }[] = [];
        do {
          if (this.isP('}') && fields.length > 0) break;
          const n = this.expectIdent('a field name');
          this.expect(':');
          fields.push({ name: n.text, type: this.type() });
        } while (this.eat(','));
        this.expect('}', "',' or '}'");
        return { t: 'record', fields, ...this.span(s) };
      }
      if (this.isP('(')) {
        this.pos++;
        const elems: Type[] = [];
        let trailing = false;
        while (!this.isP(')')) {
          elems.push(this.type());
          if (!this.eat(',')) break;
          trailing = this.isP(')');
        }
        this.expect(')', "',' or ')'");
        if (this.isP('->')) {
          if (trailing) this.fail('a type', this.toks[this.pos - 2]!);
          this.pos++;
          const ret = this.type();
          return { t: 'function', params: elems, ret, ...this.span(s) };
        }
        if (elems.length < 2) this.fail("'->'");
        return { t: 'tuple', elems, ...this.span(s) };
      }
      this.fail('a type');
    } finally {
      this.leave();
    }
  }

  // ---- expressions ----
  expr(): Expr {
    this.enter();
    try {
      return this.binary(0);
    } finally {
      this.leave();
    }
  }

  private static LEVELS: string[][] = [
    ['||'],
    ['&&'],
    ['==', '!='],
    ['<', '<=', '>', '>='],
    ['+', '-'],
    ['*', '/', '%'],
  ];

  private binary(level: number): Expr {
    if (level === Parser.LEVELS.length) return this.pow();
    let left = this.binary(level + 1);
    const ops = Parser.LEVELS[level]!;
    let extra = 0;
    try {
      while (this.tok.kind === 'punct' && ops.includes(this.tok.text)) {
        // a chain builds a left-deep tree: count it as nesting so later tree walks stay shallow
        this.enter();
        extra++;
        const op = this.tok.text;
        this.pos++;
        const right = this.binary(level + 1);
        left = { k: 'binary', op, left, right, start: left.start, end: right.end };
      }
    } finally {
      this.depth -= extra;
    }
    return left;
  }

  private pow(): Expr {
    const left = this.unary();
    if (this.isP('**')) {
      this.pos++;
      this.enter();
      try {
        const right = this.pow();
        return { k: 'binary', op: '**', left, right, start: left.start, end: right.end };
      } finally {
        this.leave();
      }
    }
    return left;
  }

  private unary(): Expr {
    if (this.isP('-') || this.isP('!')) {
      const t = this.toks[this.pos++]!;
      if (this.isP('-') || this.isP('!')) this.fail('an operand (prefix operators do not stack)');
      const operand = this.postfix();
      return { k: 'unary', op: t.text as '-' | '!', operand, start: t.start, end: operand.end };
    }
    return this.postfix();
  }

  private postfix(): Expr {
    const e = this.primary();
    let extra = 0;
    try {
      return this.postfixLoop(e, () => {
        this.enter();
        extra++;
      });
    } finally {
      this.depth -= extra;
    }
  }

  private postfixLoop(e: Expr, step: () => void): Expr {
    for (;;) {
      if (this.isP('.') || this.isP('(') || this.isP('[')) step();
      if (this.isP('.')) {
        this.pos++;
        const n = this.expectIdent('a field or method name');
        if (this.isP('(')) {
          const args = this.argList();
          e = {
            k: 'method',
            receiver: e,
            name: n.text,
            nameSpan: { start: n.start, end: n.end },
            args,
            path: namePath(e, n.text),
            start: e.start,
            end: this.toks[this.pos - 1]!.end,
          };
        } else {
          e = {
            k: 'field',
            receiver: e,
            name: n.text,
            nameSpan: { start: n.start, end: n.end },
            path: namePath(e, n.text),
            start: e.start,
            end: n.end,
          };
        }
      } else if (this.isP('(')) {
        const args = this.argList();
        e = { k: 'call', callee: e, args, start: e.start, end: this.toks[this.pos - 1]!.end };
      } else if (this.isP('[')) {
        this.pos++;
        const index = this.expr();
        this.expect(']', "']'");
        e = { k: 'index', receiver: e, index, start: e.start, end: this.toks[this.pos - 1]!.end };
      } else return e;
    }
  }

  private argList(): Arg[] {
    this.expect('(');
    const args: Arg[] = [];
    while (!this.isP(')')) {
      const t = this.tok;
      let name: string | null = null;
      if (
        t.kind === 'ident' &&
        !EXPR_KEYWORDS.has(t.text) &&
        this.peek().kind === 'punct' &&
        this.peek().text === ':'
      ) {
        name = t.text;
        this.pos += 2;
      }
      const value = this.expr();
      args.push({ name, value, start: t.start, end: value.end });
      if (!this.eat(',')) {
        if (!this.isP(')')) this.fail("',' or ')'");
      }
    }
    this.pos++;
    return args;
  }

  block(): Block {
    this.enter();
    try {
      const s = this.expect('{').start;
      const lets: LetDecl[] = [];
      while (this.isWord('let')) {
        const ls = this.tok.start;
        this.pos++;
        lets.push(this.letRest(ls, false));
      }
      const result = this.expr();
      this.expect('}');
      return { k: 'block', lets, result, ...this.span(s) };
    } finally {
      this.leave();
    }
  }

  /** `{ name: expr, ... }`; any word may name a field once we know it is a record. */
  private recordLit(): Expr {
    const s = this.expect('{').start;
    const fields: { name: string; nameSpan: Span; value: Expr }[] = [];
    do {
      if (this.isP('}') && fields.length > 0) break;
      const n = this.expectIdent('a field name');
      this.expect(':');
      fields.push({ name: n.text, nameSpan: { start: n.start, end: n.end }, value: this.expr() });
    } while (this.eat(','));
    this.expect('}', "',' or '}'");
    return { k: 'record', fields, ...this.span(s) };
  }

  private primary(): Expr {
    const t = this.tok;
    const s = t.start;
    switch (t.kind) {
      case 'number':
        this.pos++;
        return {
          k: 'number',
          digits: t.digits!,
          unit: t.unit!,
          tag: unitTag(t.unit!),
          value: numberValue(t.digits!),
          start: s,
          end: t.end,
        };
      case 'string':
        this.pos++;
        return { k: 'string', raw: t.text, triple: !!t.raw, start: s, end: t.end };
      case 'hex':
        this.pos++;
        return { k: 'hex', digits: t.text.slice(1), start: s, end: t.end };
      case 'ident':
        return this.wordPrimary(t);
      case 'punct':
        break;
      default:
        this.fail('an expression');
    }
    switch (t.text) {
      case '(': {
        this.pos++;
        const inner = this.expr();
        this.expect(')', "')'");
        return { k: 'paren', inner, ...this.span(s) };
      }
      case '[': {
        this.pos++;
        const elems = this.exprList(']');
        return { k: 'array', elems, ...this.span(s) };
      }
      case '{': {
        const a = this.peek();
        const b = this.peek(2);
        if (
          a.kind === 'ident' &&
          a.text !== 'let' &&
          !EXPR_KEYWORDS.has(a.text) &&
          b.kind === 'punct' &&
          b.text === ':'
        )
          return this.recordLit();
        return this.block();
      }
      case '|':
      case '||': {
        let params: Param[] = [];
        if (t.text === '||') this.pos++;
        else params = this.paramList('|', '|');
        let ret: Type | null = null;
        if (this.eat('->')) ret = this.type();
        if (!this.isP('{')) this.fail(ret ? "'{'" : "'->' or '{'");
        const body = this.block();
        return { k: 'lambda', params, ret, body, ...this.span(s) };
      }
    }
    this.fail('an expression');
  }

  private exprList(close: string): Expr[] {
    const elems: Expr[] = [];
    while (!this.isP(close)) {
      elems.push(this.expr());
      if (!this.eat(',')) {
        if (!this.isP(close)) this.fail(`',' or '${close}'`);
      }
    }
    this.pos++;
    return elems;
  }

  private wordPrimary(t: Token): Expr {
    const s = t.start;
    switch (t.text) {
      case 'true':
      case 'false':
        this.pos++;
        return { k: 'bool', value: t.text === 'true', start: s, end: t.end };
      case 'oklch':
      case 'oklab':
      case 'srgb': {
        this.pos++;
        this.expect('(');
        const a = this.expr();
        this.expect(',', "','");
        const b = this.expr();
        this.expect(',', "','");
        const c = this.expr();
        this.expect(')', "')'");
        return { k: 'colorfn', form: t.text, args: [a, b, c], ...this.span(s) };
      }
      case 'if':
        return this.ifExpr();
      case 'match': {
        this.pos++;
        const subject = this.expr();
        this.expect('{');
        const arms: { pattern: Pattern; body: Expr }[] = [];
        do {
          if (this.isP('}') && arms.length > 0) break;
          const pattern = this.pattern();
          this.expect('=>');
          arms.push({ pattern, body: this.expr() });
        } while (this.eat(','));
        this.expect('}', "',' or '}'");
        return { k: 'match', subject, arms, ...this.span(s) };
      }
      case 'animate': {
        this.pos++;
        this.expect('{');
        const keyframes: { at: Expr; value: Expr }[] = [];
        do {
          if (this.isP('}') && keyframes.length > 0) break;
          const at = this.expr();
          this.expect('=>');
          keyframes.push({ at, value: this.expr() });
        } while (this.eat(','));
        this.expect('}', "',' or '}'");
        let opts: { name: string; nameSpan: Span; value: Expr }[] | null = null;
        if (this.isWord('with')) {
          this.pos++;
          if (!this.isP('{')) this.fail("'{'");
          const rec = this.recordLit();
          opts = (rec as Extract<Expr, { k: 'record' }>).fields;
        }
        return { k: 'animate', keyframes, opts, ...this.span(s) };
      }
      case 'compose': {
        this.pos++;
        this.expect('[');
        const layers = this.exprList(']');
        return { k: 'compose', layers, ...this.span(s) };
      }
    }
    this.pos++;
    return { k: 'ident', name: t.text, start: s, end: t.end };
  }

  private ifExpr(): Expr {
    this.enter();
    try {
      const s = this.tok.start;
      this.pos++;
      const cond = this.expr();
      if (!this.isP('{')) this.fail("'{'");
      const then = this.block();
      let els: Block | Expr | null = null;
      if (this.isWord('else')) {
        this.pos++;
        if (this.isWord('if')) els = this.ifExpr();
        else if (this.isP('{')) els = this.block();
        else this.fail("'if' or '{'");
      }
      return { k: 'if', cond, then, else: els, ...this.span(s) };
    } finally {
      this.leave();
    }
  }

  private pattern(): Pattern {
    const t = this.tok;
    if (t.kind === 'ident') {
      if (t.text === '_') {
        this.pos++;
        return { p: 'wildcard', start: t.start, end: t.end };
      }
      if (['true', 'false', 'oklch', 'oklab', 'srgb'].includes(t.text)) {
        const lit = this.wordPrimary(t);
        return { p: 'literal', lit, start: lit.start, end: lit.end };
      }
      this.pos++;
      return { p: 'ident', name: t.text, start: t.start, end: t.end };
    }
    if (t.kind === 'number' || t.kind === 'string' || t.kind === 'hex') {
      const lit = this.primary();
      return { p: 'literal', lit, start: lit.start, end: lit.end };
    }
    this.fail('a pattern (a literal, a name or _)');
  }
}

/** Parses a BOM-stripped source. Never throws. */
export function parse(src: string): ParseResult {
  const toks = lex(src);
  const p = new Parser(toks);
  try {
    return { ok: true, program: p.program() };
  } catch (e) {
    if (e instanceof SyntaxError_) return { ok: false, error: e };
    if (e instanceof RangeError) {
      // should be unreachable thanks to MAX_DEPTH; keep the promise of never throwing
      return { ok: false, error: new SyntaxError_('PAR101', `syntax error: nesting too deep`, 0, 0) };
    }
    throw e;
  }
}

/** `receiver.name` as a name path when the receiver is a plain name or a name path. */
function namePath(receiver: Expr, name: string): NamePath | null {
  if (receiver.k === 'ident') return { root: receiver.name, text: `${receiver.name}.${name}` };
  if (receiver.k === 'field' && receiver.path)
    return { root: receiver.path.root, text: `${receiver.path.text}.${name}` };
  return null;
}
