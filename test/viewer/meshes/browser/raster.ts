// Bundled by handdrawn.test.ts: decode an image in Chromium and read it at the working size with the
// builders' own browser helper; the raw RGBA goes back as base64.
import { rasterAtWorkingSize } from '../../../../viewer/src/meshes/index.js';

async function main() {
  const img = new Image();
  img.src = (window as unknown as { __img: string }).__img;
  await img.decode();
  const r = rasterAtWorkingSize(img, 700);
  let bin = '';
  for (let i = 0; i < r.data.length; i += 0x8000) bin += String.fromCharCode(...r.data.subarray(i, i + 0x8000));
  return {
    width: r.width,
    height: r.height,
    naturalWidth: r.naturalWidth,
    naturalHeight: r.naturalHeight,
    b64: btoa(bin),
  };
}
(window as unknown as { __result: Promise<unknown> }).__result = main().catch((e) => ({
  error: String(e?.stack ?? e),
}));
