// Which characters the one font has an outline for (DM Sans Bold v1.200, viewer/src/font-file.ts): the code point
// ranges of its cmap, so a text can be checked without loading the font (LIB006). A character outside them draws
// as the font's empty box. test/lang/library-warnings.test.ts holds this table to the font file itself.
// No Node-only APIs: the editor bundles this module.

/** Inclusive [first, last] code point ranges, ascending. */
export const FONT_RANGES: readonly (readonly [number, number])[] = [
  [13, 13],
  [32, 126],
  [160, 263],
  [266, 283],
  [286, 291],
  [296, 305],
  [310, 311],
  [313, 328],
  [332, 347],
  [350, 357],
  [360, 382],
  [399, 399],
  [402, 402],
  [508, 509],
  [536, 539],
  [601, 601],
  [710, 711],
  [728, 733],
  [768, 772],
  [774, 776],
  [778, 780],
  [807, 808],
  [960, 960],
  [7808, 7813],
  [7868, 7869],
  [7922, 7923],
  [7928, 7929],
  [8211, 8212],
  [8216, 8218],
  [8220, 8222],
  [8224, 8226],
  [8230, 8230],
  [8240, 8240],
  [8249, 8250],
  [8260, 8260],
  [8308, 8308],
  [8360, 8360],
  [8364, 8364],
  [8381, 8381],
  [8467, 8467],
  [8482, 8482],
  [8486, 8486],
  [8494, 8494],
  [8706, 8706],
  [8710, 8710],
  [8719, 8719],
  [8721, 8722],
  [8725, 8725],
  [8730, 8730],
  [8734, 8734],
  [8747, 8747],
  [8776, 8776],
  [8800, 8800],
  [8804, 8805],
  [9674, 9674],
  [64257, 64258],
];

export function hasOutline(cp: number): boolean {
  let lo = 0;
  let hi = FONT_RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = FONT_RANGES[mid]!;
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The distinct characters of a text the font cannot draw, in order of first appearance (control characters and
 * line breaks are layout, not glyphs, and are left out). */
export function missingGlyphs(text: string): string[] {
  const out: string[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 32 || hasOutline(cp) || out.includes(ch)) continue;
    out.push(ch);
  }
  return out;
}
