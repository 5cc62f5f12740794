// Minimal typings for the parts of opentype.js 2.0.0 that the geometry builders use
// (the package ships no .d.ts and @types/opentype.js is not a dependency).
declare module 'opentype.js' {
  export interface PathCommand {
    type: 'M' | 'L' | 'Q' | 'C' | 'Z';
    x?: number;
    y?: number;
    x1?: number;
    y1?: number;
    x2?: number;
    y2?: number;
  }
  export class Path {
    commands: PathCommand[];
  }
  export class Glyph {
    index: number;
    name: string | null;
    unicode: number | undefined;
    advanceWidth: number | undefined;
    getPath(x?: number, y?: number, fontSize?: number, options?: unknown, font?: Font): Path;
  }
  export class Font {
    unitsPerEm: number;
    ascender: number;
    descender: number;
    tables: { [name: string]: any };
    charToGlyph(c: string): Glyph;
    charToGlyphIndex(c: string): number;
    glyphs: { get(index: number): Glyph; length: number };
  }
  export function parse(buffer: ArrayBuffer, opt?: unknown): Font;
}
