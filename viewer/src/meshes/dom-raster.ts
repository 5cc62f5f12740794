// Browser-only helper for vectorize (viewer.md §5.6.5 step 1): draw a decoded image onto a 2D canvas of the
// working size (the browser's default smoothing, as the reference does) and read back RGBA. The result
// carries the natural size, so traceToSvg uses σ and the viewBox of the original image.
// Uses the DOM only when called; importing it in Node is harmless.
import type { RasterImage } from './types.js';
import { workingSize } from './vectorize.js';

export function rasterAtWorkingSize(
  img: CanvasImageSource & {
    naturalWidth?: number;
    naturalHeight?: number;
    width?: number | SVGAnimatedLength;
    height?: number | SVGAnimatedLength;
  },
  maxDim = 700,
): RasterImage {
  const ow = img.naturalWidth ?? (typeof img.width === 'number' ? img.width : 0);
  const oh = img.naturalHeight ?? (typeof img.height === 'number' ? img.height : 0);
  if (!(ow > 0 && oh > 0)) throw new Error('vectorize: image has no size');
  const { w, h } = workingSize(ow, oh, maxDim);
  const canvas =
    typeof document !== 'undefined'
      ? Object.assign(document.createElement('canvas'), { width: w, height: h })
      : new OffscreenCanvas(w, h);
  const ctx = (canvas as HTMLCanvasElement).getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D;
  ctx.drawImage(img, 0, 0, w, h);
  const data = ctx.getImageData(0, 0, w, h).data;
  return { width: w, height: h, data, naturalWidth: ow, naturalHeight: oh };
}
