// The video pixel format, owned in one place: BT.709, limited range ("tv"), 8-bit, 4:2:0 (I420). Both the page
// (which converts its canvas on the GPU before the read back, viewer/src/readback-i420.ts) and Node (rgbaToI420 in
// src/render/ffmpeg.ts, for GIF-free fallbacks and the tests) use these integers, so the two give the same bytes.
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
