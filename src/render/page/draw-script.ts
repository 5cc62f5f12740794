// The page half of a frame: draw one evaluated value and hand back its pixels, run-length encoded as 32-bit words
// (flat 2D frames shrink by orders of magnitude, so far fewer bytes cross the DevTools protocol), and the Node
// half that decodes them. Format: a header word h; h >= 2^31: a run of (h - 2^31) copies of the next word; else
// h literal words follow.

/**
 * The picture format a frame leaves the page in: RGBA (GIF, JPEG, WebP, a transparent PNG), RGBA as read back
 * ('rgba-as-read': bottom row first, alpha as drawn; an opaque PNG, whose encoder packs the rows itself) or I420
 * converted in the page (video).
 */
export type PixelFormat = 'rgba' | 'rgba-as-read' | 'i420';

/** Bytes of one picture of a format. */
export function pictureBytes(format: PixelFormat, width: number, height: number): number {
  return format === 'i420' ? (width * height * 3) / 2 : width * height * 4;
}

/**
 * Installed in the page after the viewer module: window.__cmrDraw(json, format, partial) -> {px: RLE bytes, rect,
 * t: [draw, read, pack] ms} | null (unchanged) | {error}. With `partial` (the caller holds this page's previous
 * picture), only the rectangle the frame changed is read back and sent ([x, y, width, height], top row 0); `rect`
 * is null when the picture is whole. The stage times let the renderer say where a frame's time went.
 */
export const DRAW_SCRIPT = `
// Nobody looks at the service's page: a visible canvas has the compositor copy and draw it (in software) after
// every frame, about 20 ms of a 1080p frame's draw and as much of its read back. Drawing and reading back the
// drawing buffer do not depend on it being shown, so the pixels are the same.
document.querySelector('canvas').style.visibility = 'hidden';
window.__cmrDraw = async function (json, format, partial) {
  const v = window.cmViewer;
  const t0 = performance.now();
  let value;
  try { value = JSON.parse(json); } catch (e) { return { error: { code: 'bad_value', message: 'value is not JSON' } }; }
  // the JSON text is the value's key: an equal value on screen is not drawn again
  const r = await v.draw(value, json);
  if (!r.ok) return { error: r.error };
  if (!r.changed) return null;
  const t1 = performance.now();
  // the read back and its packing allocate a picture's bytes: one past what the heap gives is the page's to say, as a
  // draw's is (an exception would reach the renderer as a page that could not answer)
  try { return window.__cmrReadBack(v, format, partial, t0, t1); } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { error: { code: e instanceof RangeError ? 'draw_too_large' : 'draw_failed', message } };
  }
};
window.__cmrReadBack = function (v, format, partial, t0, t1) {
  // a picture as read back is always whole
  const d = partial && format !== 'rgba-as-read' ? v.damage : null;
  const px = format === 'i420' ? v.pixelsI420(d || undefined) : format === 'rgba-as-read' ? v.pixelsAsRead() : v.pixels(d || undefined);
  const t2 = performance.now();
  // an I420 picture is not always a whole number of words: its buffer is padded to whole words, so the
  // last word is read whole and Node drops the padding
  const src = new Uint32Array(px.buffer, px.byteOffset, (px.byteLength + 3) >>> 2);
  const n = src.length;
  const out = new Uint32Array(n + (n >>> 1) + 16);
  let o = 0, i = 0;
  while (i < n) {
    const val = src[i];
    let j = i + 1;
    while (j < n && src[j] === val) j++;
    if (j - i >= 3) { out[o++] = 0x80000000 + (j - i); out[o++] = val; i = j; continue; }
    const start = i; const hdr = o++;
    i = j;
    while (i < n) {
      if (i + 2 < n && src[i] === src[i + 1] && src[i] === src[i + 2]) break;
      i++;
    }
    out[hdr] = i - start;
    out.set(src.subarray(start, i), o); o += i - start;
  }
  const rect = d && [d.x, d.y, d.width, d.height];
  return { px: new Uint8Array(out.buffer, 0, o * 4), rect, t: [t1 - t0, t2 - t1, performance.now() - t2] };
};
true;
`;

/** Decodes __cmrDraw's run-length words into the picture's bytes (byteCount, the last word's padding dropped). */
export function decodeRle(enc: Uint8Array, byteCount: number): Buffer {
  const pixelCount = (byteCount + 3) >>> 2; // words
  const out = Buffer.allocUnsafe(pixelCount * 4);
  const dst = new Uint32Array(out.buffer, out.byteOffset, pixelCount);
  const aligned = enc.byteOffset % 4 === 0 ? enc : new Uint8Array(enc);
  const src = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength >>> 2);
  let o = 0;
  let i = 0;
  while (i < src.length) {
    const h = src[i++];
    if (h >= 0x80000000) {
      const len = h - 0x80000000;
      if (o + len > pixelCount) break;
      dst.fill(src[i++], o, o + len);
      o += len;
    } else {
      if (o + h > pixelCount) break;
      dst.set(src.subarray(i, i + h), o);
      i += h;
      o += h;
    }
  }
  if (o !== pixelCount || i !== src.length) throw new Error(`frame decode: got ${o} words, expected ${pixelCount}`);
  return byteCount === out.length ? out : out.subarray(0, byteCount);
}
