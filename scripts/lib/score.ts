// Content score of a rendered frame against a reference frame (issue #4).
// SSIM forgives a frame that is only background, so this scores the content instead:
// a content pixel is one that differs from the reference's corner colour by more than 16 in some channel,
// in either image; it matches when the other image has, within 2 px, a pixel whose every channel is within 24.
// score = matched content pixels / content pixels (both images' content counted).

export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array | Uint8ClampedArray | Buffer;
}

export const CONTENT_THRESHOLD = 16;
export const MATCH_TOLERANCE = 24;
export const MATCH_RADIUS = 2;

export interface Score {
  score: number;
  content: number;
  matched: number;
}

export function contentScore(ours: Rgba, ref: Rgba): Score {
  if (ours.width !== ref.width || ours.height !== ref.height) {
    throw new Error(`size differs: ${ours.width}x${ours.height} vs reference ${ref.width}x${ref.height}`);
  }
  const { width: w, height: h } = ref;
  const bg = [ref.data[0], ref.data[1], ref.data[2]];
  let content = 0;
  let matched = 0;
  const isContent = (img: Rgba, i: number) =>
    Math.abs(img.data[i] - bg[0]) > CONTENT_THRESHOLD ||
    Math.abs(img.data[i + 1] - bg[1]) > CONTENT_THRESHOLD ||
    Math.abs(img.data[i + 2] - bg[2]) > CONTENT_THRESHOLD;
  const hasNear = (other: Rgba, x: number, y: number, r: number, g: number, b: number) => {
    for (let dy = -MATCH_RADIUS; dy <= MATCH_RADIUS; dy++) {
      const yy = y + dy;
      if (yy < 0 || yy >= h) continue;
      for (let dx = -MATCH_RADIUS; dx <= MATCH_RADIUS; dx++) {
        const xx = x + dx;
        if (xx < 0 || xx >= w) continue;
        const j = (yy * w + xx) * 4;
        if (
          Math.abs(other.data[j] - r) <= MATCH_TOLERANCE &&
          Math.abs(other.data[j + 1] - g) <= MATCH_TOLERANCE &&
          Math.abs(other.data[j + 2] - b) <= MATCH_TOLERANCE
        )
          return true;
      }
    }
    return false;
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      for (const [a, b] of [
        [ours, ref],
        [ref, ours],
      ] as const) {
        if (!isContent(a, i)) continue;
        content++;
        if (hasNear(b, x, y, a.data[i], a.data[i + 1], a.data[i + 2])) matched++;
      }
    }
  }
  return { score: content === 0 ? 1 : matched / content, content, matched };
}
