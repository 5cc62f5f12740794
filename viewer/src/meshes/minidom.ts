// A small XML → DOM-subset parser, enough for three.js SVGLoader in Node (tests, workers) where no
// DOMParser exists. The browser keeps its own DOMParser. Supports elements, attributes (with entity
// decoding), self-closing tags, text, comments, CDATA, <?…?> and <!DOCTYPE …>. Malformed input throws.

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (m, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
      return Number.isFinite(cp) ? String.fromCodePoint(cp) : m;
    }
    return ENTITIES[e] ?? m;
  });
}

class MiniText {
  readonly nodeType = 3;
  readonly nodeName = '#text';
  readonly childNodes: MiniNode[] = [];
  constructor(public textContent: string) {}
}

type MiniNode = MiniElement | MiniText;

function styleObject(text: string): Record<string, string> {
  const o: Record<string, string> = {};
  for (const decl of text.split(';')) {
    const i = decl.indexOf(':');
    if (i < 0) continue;
    const k = decl.slice(0, i).trim().toLowerCase();
    if (k)
      o[k] = decl
        .slice(i + 1)
        .trim()
        .replace(/\s*!important$/, '');
  }
  // CSSStyleDeclaration answers '' for properties that are not set.
  return new Proxy(o, { get: (t, k) => (typeof k === 'string' ? (t[k] ?? '') : undefined) });
}

export class MiniElement {
  readonly nodeType = 1;
  readonly childNodes: MiniNode[] = [];
  parentNode: MiniElement | null = null;
  style: Record<string, string> | undefined;
  constructor(
    public readonly nodeName: string,
    private readonly attrs: Map<string, string>,
  ) {
    const s = attrs.get('style');
    if (s !== undefined) this.style = styleObject(s);
  }
  get tagName(): string {
    return this.nodeName;
  }
  hasAttribute(n: string): boolean {
    return this.attrs.has(n);
  }
  getAttribute(n: string): string | null {
    return this.attrs.has(n) ? this.attrs.get(n)! : null;
  }
  getAttributeNS(_ns: string | null, n: string): string | null {
    for (const [k, v] of this.attrs) if (k === n || k.endsWith(':' + n)) return v;
    return null;
  }
  get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join('');
  }
  get viewportElement(): MiniElement {
    let e: MiniElement = this;
    while (e.parentNode) e = e.parentNode;
    return e;
  }
  getElementById(id: string): MiniElement | null {
    if (this.attrs.get('id') === id) return this;
    for (const c of this.childNodes) {
      if (c instanceof MiniElement) {
        const f = c.getElementById(id);
        if (f) return f;
      }
    }
    return null;
  }
}

export function parseXml(text: string): MiniElement {
  let i = 0;
  const n = text.length;
  const root = new MiniElement('#document', new Map());
  const stack: MiniElement[] = [root];
  const fail = (msg: string): never => {
    throw new Error(`XML parse error at ${i}: ${msg}`);
  };
  while (i < n) {
    const lt = text.indexOf('<', i);
    const top = stack[stack.length - 1];
    if (lt < 0) {
      if (text.slice(i).trim()) top.childNodes.push(new MiniText(decode(text.slice(i))));
      break;
    }
    if (lt > i) top.childNodes.push(new MiniText(decode(text.slice(i, lt))));
    i = lt;
    if (text.startsWith('<!--', i)) {
      const e = text.indexOf('-->', i + 4);
      if (e < 0) fail('comment');
      i = e + 3;
      continue;
    }
    if (text.startsWith('<![CDATA[', i)) {
      const e = text.indexOf(']]>', i);
      if (e < 0) fail('cdata');
      top.childNodes.push(new MiniText(text.slice(i + 9, e)));
      i = e + 3;
      continue;
    }
    if (text.startsWith('<?', i)) {
      const e = text.indexOf('?>', i);
      if (e < 0) fail('pi');
      i = e + 2;
      continue;
    }
    if (text.startsWith('<!', i)) {
      // DOCTYPE, possibly with an internal subset [...]
      let depth = 0,
        j = i + 2;
      for (; j < n; j++) {
        const c = text[j];
        if (c === '[') depth++;
        else if (c === ']') depth--;
        else if (c === '>' && depth <= 0) break;
      }
      if (j >= n) fail('doctype');
      i = j + 1;
      continue;
    }
    if (text[i + 1] === '/') {
      const e = text.indexOf('>', i);
      if (e < 0) fail('end tag');
      const name = text.slice(i + 2, e).trim();
      if (stack.length <= 1 || top.nodeName !== name) fail(`unexpected </${name}>`);
      stack.pop();
      i = e + 1;
      continue;
    }
    // start tag
    const m = /^<([A-Za-z_:][-A-Za-z0-9_:.]*)/.exec(text.slice(i, i + 200));
    if (!m) fail('tag name');
    const name = m![1];
    i += m![0].length;
    const attrs = new Map<string, string>();
    for (;;) {
      while (i < n && /\s/.test(text[i])) i++;
      if (i >= n) fail('unterminated tag');
      if (text[i] === '>') {
        i++;
        const el = new MiniElement(name, attrs);
        el.parentNode = top === root ? null : top;
        top.childNodes.push(el);
        stack.push(el);
        break;
      }
      if (text.startsWith('/>', i)) {
        i += 2;
        const el = new MiniElement(name, attrs);
        el.parentNode = top === root ? null : top;
        top.childNodes.push(el);
        break;
      }
      const am = /^([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(text.slice(i));
      if (!am) fail('attribute');
      attrs.set(am![1], decode(am![3] ?? am![4] ?? ''));
      i += am![0].length;
    }
  }
  if (stack.length !== 1) fail('unclosed element');
  const el = root.childNodes.find((c): c is MiniElement => c instanceof MiniElement);
  if (!el) fail('no root element');
  return el!;
}

/** The DOMParser shape SVGLoader uses: parseFromString(text).documentElement. */
export class MiniDOMParser {
  parseFromString(text: string, _type: string): { documentElement: MiniElement } {
    return { documentElement: parseXml(text) };
  }
}
