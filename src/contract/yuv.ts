// The video pixel format, owned in one place: BT.709, limited range ("tv"), 8-bit, 4:2:0 (I420), and the one
// conversion to it. Both the page (which converts its read back before the pixels leave it, viewer/src/viewer.ts)
// and Node (src/render/rgba-to-i420.ts, for RGBA that arrives whole, and the tests) run this code, so they give the same
// bytes.
//   Y  = 16  + 219·(Kr R + Kg G + Kb B)/255
//   Cb = 128 + 224·(B - Y')/(1.8556·255), Cr = 128 + 224·(R - Y')/(1.5748·255), over the average of a 2x2 block
// in 16.16 fixed point; integer arithmetic only, so every machine gives the same bytes.
export const YUV_FX = 65536;
const fx = (x: number) => Math.round(x * YUV_FX);
export const YUV = {
  yR: fx((0.2126 * 219) / 255),
  yG: fx((0.7152 * 219) / 255),
  yB: fx((0.0722 * 219) / 255),
  cbR: fx(((-0.2126 / 1.8556) * 224) / 255),
  cbG: fx(((-0.7152 / 1.8556) * 224) / 255),
  cbB: fx((0.5 * 224) / 255),
  crR: fx((0.5 * 224) / 255),
  crG: fx(((-0.7152 / 1.5748) * 224) / 255),
  crB: fx(((-0.0722 / 1.5748) * 224) / 255),
  /** 16 (+ rounding) for luma, 128 (+ rounding) for chroma, in fixed point */
  yOff: 16 * YUV_FX + YUV_FX / 2,
  cOff: 128 * YUV_FX + YUV_FX / 2,
} as const;

/** Bytes of one I420 picture (Y plane, then U and V at half width and height). Sides must be even. */
export function i420Bytes(width: number, height: number): number {
  return (width * height * 3) / 2;
}

/**
 * RGBA -> I420 in slices of rows: `rows(y0, y1)` converts output rows [y0, y1) (even bounds), so a caller can give
 * the event loop a turn between slices. `bottomUp`: the RGBA rows are bottom row first (a WebGL read back); the
 * output is always top row first. `out` may be longer than the picture (the page pads it to whole 32-bit words).
 */
export function i420Converter(
  rgba: Uint8Array,
  width: number,
  height: number,
  opts: { bottomUp?: boolean; out?: Uint8Array } = {},
): { buf: Uint8Array; rows(y0: number, y1: number): void } {
  if (width % 2 || height % 2) throw new Error(`rgbaToI420 needs even dimensions, got ${width}x${height}`);
  const { yR, yG, yB, cbR, cbG, cbB, crR, crG, crB, yOff, cOff } = YUV;
  const ySize = width * height;
  const cw = width >> 1;
  const buf = opts.out ?? new Uint8Array(i420Bytes(width, height));
  const uOff = ySize;
  const vOff = ySize + (ySize >> 2);
  const stride = width * 4;
  // the source row of output row y, and the step to the row below it
  const rowStart = opts.bottomUp ? (y: number) => (height - 1 - y) * stride : (y: number) => y * stride;
  const down = opts.bottomUp ? -stride : stride;
  const rows = (y0: number, y1: number) => {
    for (let y = y0; y < y1; y += 2) {
      let i0 = rowStart(y);
      let i1 = i0 + down;
      let yo0 = y * width;
      let yo1 = yo0 + width;
      let co = (y >> 1) * cw;
      for (let x = 0; x < width; x += 2) {
        const r0 = rgba[i0],
          g0 = rgba[i0 + 1],
          b0 = rgba[i0 + 2];
        const r1 = rgba[i0 + 4],
          g1 = rgba[i0 + 5],
          b1 = rgba[i0 + 6];
        const r2 = rgba[i1],
          g2 = rgba[i1 + 1],
          b2 = rgba[i1 + 2];
        const r3 = rgba[i1 + 4],
          g3 = rgba[i1 + 5],
          b3 = rgba[i1 + 6];
        buf[yo0] = (yR * r0 + yG * g0 + yB * b0 + yOff) >> 16;
        buf[yo0 + 1] = (yR * r1 + yG * g1 + yB * b1 + yOff) >> 16;
        buf[yo1] = (yR * r2 + yG * g2 + yB * b2 + yOff) >> 16;
        buf[yo1 + 1] = (yR * r3 + yG * g3 + yB * b3 + yOff) >> 16;
        const r = r0 + r1 + r2 + r3,
          g = g0 + g1 + g2 + g3,
          b = b0 + b1 + b2 + b3;
        buf[uOff + co] = (cbR * r + cbG * g + cbB * b + 4 * cOff) >> 18;
        buf[vOff + co] = (crR * r + crG * g + crB * b + 4 * cOff) >> 18;
        i0 += 8;
        i1 += 8;
        yo0 += 2;
        yo1 += 2;
        co++;
      }
    }
  };
  return { buf, rows };
}
