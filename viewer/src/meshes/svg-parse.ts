// SVG text → three.js SVGLoader data: the one parse step shared by svg() (svg.ts, runner 0.0.10+) and the
// legacy runners (svg-legacy.ts). It lives on its own so those two modules do not import each other.
import { SVGLoader } from 'three/examples/jsm/loaders/SVGLoader.js';
import { MiniDOMParser } from './minidom.js';

export type SvgData = ReturnType<SVGLoader['parse']>;

/** Run SVGLoader.parse with a DOMParser: the browser's own, else our minimal XML parser (Node).
 *  Returns null on a parse failure. */
export function parseSvg(text: string): SvgData | null {
  const g = globalThis as { DOMParser?: unknown };
  const native = typeof g.DOMParser === 'function';
  try {
    if (native) {
      const doc = new (g.DOMParser as typeof DOMParser)().parseFromString(text, 'image/svg+xml');
      if (doc.getElementsByTagName('parsererror').length > 0) return null;
      return new SVGLoader().parse(text);
    }
    g.DOMParser = MiniDOMParser;
    try {
      return new SVGLoader().parse(text);
    } finally {
      delete g.DOMParser;
    }
  } catch {
    return null;
  }
}
