// Extension <-> MIME type of outputs and assets (service.md "Outputs").
export const OUTPUT_MIME = {
  png: 'image/png',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  glb: 'model/gltf-binary',
  svg: 'image/svg+xml',
} as const;
export type OutputExt = keyof typeof OUTPUT_MIME;
export type OutputMime = (typeof OUTPUT_MIME)[OutputExt];

/** Each kind's extension with default params (a video's codec or a frame's format may choose another: outputs.ts). */
export const KIND_EXT = {
  frame: 'png',
  video: 'mp4',
  gif: 'gif',
  mesh: 'glb',
  vectorize: 'svg',
} as const satisfies Record<string, OutputExt>;

/** The drawing page's own files (html, bundle, font) by extension. */
export const PAGE_FILE_MIME: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  woff: 'font/woff',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  wasm: 'application/wasm',
};

export type ImageType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | 'image/svg+xml';

/** The image type of an uploaded file, judged by its bytes only; undefined when it is not an accepted image. */
export function sniffImage(buf: Buffer): ImageType | undefined {
  if (buf.length >= 8 && buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg';
  if (buf.length >= 12 && buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP')
    return 'image/webp';
  if (buf.length >= 6 && (buf.toString('latin1', 0, 6) === 'GIF87a' || buf.toString('latin1', 0, 6) === 'GIF89a'))
    return 'image/gif';
  // SVG: text, optionally a BOM, XML declaration, comments or doctype, then an <svg element.
  let head = buf.subarray(0, 4096).toString('utf8');
  if (head.charCodeAt(0) === 0xfeff) head = head.slice(1);
  head = head.trimStart();
  for (;;) {
    const m = /^(<\?xml[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)\s*/i.exec(head);
    if (!m) break;
    head = head.slice(m[0].length);
  }
  if (/^<svg[\s>]/i.test(head)) return 'image/svg+xml';
  return undefined;
}
