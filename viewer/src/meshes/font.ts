// Font loading (viewer.md §5.6.1): always DM Sans Bold, parsed with opentype.js 2.0.0.
import * as otNs from 'opentype.js';
import type { Font } from 'opentype.js';

// The ESM build (browser bundle) has named exports; Node resolves the UMD build, whose namespace
// import only carries `default`. Accept both.
const ot: typeof otNs = (otNs as any).parse ? otNs : (otNs as any).default;

export function parseFont(buf: ArrayBuffer): Font {
  return ot.parse(buf);
}

/** unitsPerEm / (hhea.ascender − hhea.descender): `size:` px → em (0.768049 for DM Sans Bold). */
export function emFactor(font: Font): number {
  const hhea = font.tables.hhea;
  const asc = hhea?.ascender ?? font.ascender;
  const desc = hhea?.descender ?? font.descender;
  return font.unitsPerEm / (asc - desc);
}
