// Video frames leave the page as I420 (BT.709 limited range, src/contract/yuv.ts) instead of RGBA: 1.5 bytes a
// pixel instead of 4, converted on the GPU, so the read back, the copy out of the page and Node's conversion all
// shrink (issue 11). The conversion is the integer arithmetic of Node's rgbaToI420, run per output byte in a
// fragment shader (GLSL ES 3.00 has 32-bit ints and arithmetic shifts), so the bytes are identical to
// rgbaToI420(pixels()).
//
// How: the drawing buffer is copied into a texture (the copy resolves the multisampled buffer, as a read would),
// then one pass writes the I420 picture as a flat byte array, four bytes a texel, read back in one call. When the
// width is a multiple of 8 and the height of 4 (every usual video size) the target is W/4 texels wide, so a target
// row is one Y row, or two U or V rows, and no fragment divides; otherwise the target is TARGET_WIDTH texels wide
// and each byte finds its plane and place by division (SwiftShader pays dearly for integer division).
import * as THREE from 'three';
import { YUV } from '../../src/contract/yuv';

const TARGET_WIDTH = 4096;

/** What both conversions share: the source, the BT.709 integers (src/contract/yuv.ts), a pixel's 8-bit value. */
const PRELUDE = /* glsl */ `
precision highp float;
precision highp int;
uniform highp sampler2D src;
uniform int W;
uniform int H;
const int YR = ${YUV.yR}, YG = ${YUV.yG}, YB = ${YUV.yB};
const int UR = ${YUV.cbR}, UG = ${YUV.cbG}, UB = ${YUV.cbB};
const int VR = ${YUV.crR}, VG = ${YUV.crG}, VB = ${YUV.crB};
const int YOFF = ${YUV.yOff}, COFF = ${YUV.cOff};

// the canvas's 8-bit value at (x, y), top row first (the drawing buffer is bottom row first)
ivec3 px(int x, int y) {
  return ivec3(round(texelFetch(src, ivec2(x, H - 1 - y), 0).rgb * 255.0));
}
`;

const FRAGMENT = /* glsl */ `
${PRELUDE}
int byteAt(int b) {
  int ySize = W * H;
  if (b < ySize) {
    ivec3 c = px(b % W, b / W);
    return (YR * c.r + YG * c.g + YB * c.b + YOFF) >> 16;
  }
  int cw = W / 2;
  int cSize = ySize / 4;
  int i = b - ySize;
  bool u = i < cSize;
  if (!u) i -= cSize;
  if (i >= cSize) return 0;
  int x = (i % cw) * 2, y = (i / cw) * 2;
  ivec3 s = px(x, y) + px(x + 1, y) + px(x, y + 1) + px(x + 1, y + 1);
  return u ? (UR * s.r + UG * s.g + UB * s.b + 4 * COFF) >> 18 : (VR * s.r + VG * s.g + VB * s.b + 4 * COFF) >> 18;
}

void main() {
  int k = (int(gl_FragCoord.y) * ${TARGET_WIDTH} + int(gl_FragCoord.x)) * 4;
  gl_FragColor = vec4(float(byteAt(k)), float(byteAt(k + 1)), float(byteAt(k + 2)), float(byteAt(k + 3))) / 255.0;
}
`;

/** W % 8 == 0 and H % 4 == 0: the target is W/4 texels wide; rows 0..H-1 are Y, then H/4 rows of U, H/4 of V. */
const FRAGMENT_ALIGNED = /* glsl */ `
${PRELUDE}// in float: every product and partial sum is an integer below 2^24, so exact, and the shift is a floor of a
// division by 2^16 (exact too); SwiftShader runs this faster than the integer form
const vec3 YK = vec3(float(YR), float(YG), float(YB));
float luma(int x, int y) {
  vec3 c = round(texelFetch(src, ivec2(x, H - 1 - y), 0).rgb * 255.0);
  return floor((dot(YK, c) + float(YOFF)) / 65536.0);
}
// the chroma byte of the 2x2 block whose top-left pixel is (x, y)
float chroma(int x, int y, bool u) {
  ivec3 s = px(x, y) + px(x + 1, y) + px(x, y + 1) + px(x + 1, y + 1);
  return float(u ? (UR * s.r + UG * s.g + UB * s.b + 4 * COFF) >> 18 : (VR * s.r + VG * s.g + VB * s.b + 4 * COFF) >> 18);
}

void main() {
  int tx = int(gl_FragCoord.x), ty = int(gl_FragCoord.y);
  if (ty < H) {
    int x = tx * 4;
    gl_FragColor = vec4(luma(x, ty), luma(x + 1, ty), luma(x + 2, ty), luma(x + 3, ty)) / 255.0;
    return;
  }
  int r = ty - H;
  int quarter = H / 4;
  bool u = r < quarter;
  if (!u) r -= quarter;
  // a target row holds two chroma rows of W/2 bytes each: the second half of the row is the odd one
  int hw = W / 8;
  int cy = r * 2 + (tx >= hw ? 1 : 0);
  int cx = (tx >= hw ? tx - hw : tx) * 4;
  int y = cy * 2;
  gl_FragColor = vec4(chroma(cx * 2, y, u), chroma(cx * 2 + 2, y, u), chroma(cx * 2 + 4, y, u), chroma(cx * 2 + 6, y, u)) / 255.0;
}
`;

export class I420Readback {
  private source: THREE.FramebufferTexture | null = null;
  private target: THREE.WebGLRenderTarget | null = null;
  private readonly generic = conversion(FRAGMENT);
  private readonly aligned = conversion(FRAGMENT_ALIGNED);
  private readonly quad = new THREE.Mesh(new THREE.PlaneGeometry(2, 2), this.generic);
  private readonly scene = new THREE.Scene();
  private readonly camera = new THREE.OrthographicCamera();

  constructor(private readonly renderer: THREE.WebGLRenderer) {
    this.quad.frustumCulled = false;
    this.scene.add(this.quad);
  }

  /** The drawing buffer (width × height, both even) as I420 bytes: Y, then U, then V; top row first. */
  read(width: number, height: number): Uint8Array {
    if (width % 2 || height % 2) throw new Error(`I420 needs even sides, got ${width}x${height}`);
    const bytes = (width * height * 3) / 2;
    const isAligned = width % 8 === 0 && height % 4 === 0;
    const targetWidth = isAligned ? width / 4 : TARGET_WIDTH;
    const rows = isAligned ? (height * 3) / 2 : Math.ceil(bytes / 4 / TARGET_WIDTH);
    const material = isAligned ? this.aligned : this.generic;
    const r = this.renderer;
    if (!this.source || this.source.image.width !== width || this.source.image.height !== height) {
      this.source?.dispose();
      this.source = new THREE.FramebufferTexture(width, height);
    }
    if (!this.target || this.target.width !== targetWidth || this.target.height !== rows) {
      this.target?.dispose();
      this.target = new THREE.WebGLRenderTarget(targetWidth, rows, { depthBuffer: false, generateMipmaps: false });
    }
    r.setRenderTarget(null);
    r.setScissorTest(false);
    r.setViewport(0, 0, width, height);
    r.copyFramebufferToTexture(this.source, new THREE.Vector2(0, 0));
    material.uniforms.src.value = this.source;
    material.uniforms.W.value = width;
    material.uniforms.H.value = height;
    this.quad.material = material;
    r.setRenderTarget(this.target); // its own viewport: the whole target
    r.render(this.scene, this.camera);
    const out = new Uint8Array(targetWidth * rows * 4);
    r.readRenderTargetPixels(this.target, 0, 0, targetWidth, rows, out);
    r.setRenderTarget(null);
    return out.subarray(0, bytes);
  }

  dispose(): void {
    this.source?.dispose();
    this.target?.dispose();
    this.generic.dispose();
    this.aligned.dispose();
  }
}

function conversion(fragmentShader: string): THREE.ShaderMaterial {
  return new THREE.ShaderMaterial({
    uniforms: { src: { value: null as THREE.Texture | null }, W: { value: 0 }, H: { value: 0 } },
    vertexShader: 'void main() { gl_Position = vec4(position.xy, 0.0, 1.0); }',
    fragmentShader,
    depthTest: false,
    depthWrite: false,
    toneMapped: false,
  });
}
