// The service page's drawing target: a multisampled framebuffer of the viewer's own that stands in for the canvas's,
// so that a read back resolves only the rectangle it reads. The canvas's own multisampled buffer is resolved whole
// by Chromium before any read, and on llvmpipe that resolve is about 30 ms of CPU a 1080p frame, whatever changed;
// a video frame redrawn under a scissor (damage.ts) changes about a quarter of the homepage's frame.
//
// three.js keeps drawing "to the screen" (framebuffer null): the context's bindFramebuffer is wrapped to bind this
// target in its place, so every shader, state and draw call is what it was. The target is what Chromium's drawing
// buffer is (4 samples of RGBA8, a 24-bit depth buffer, no stencil) and the resolve is the same blit, so the pixels
// are the same (test/render/golden.test.ts, test/viewer/readback-offscreen.test.ts).

/** Chromium's sample count for an antialiased WebGL drawing buffer (its DrawingBuffer asks for at most 4). */
const SAMPLES = 4;

export class MsaaTarget {
  private readonly msaa: WebGLFramebuffer;
  private readonly resolved: WebGLFramebuffer;
  private readonly colour: WebGLRenderbuffer;
  private readonly depth: WebGLRenderbuffer;
  private readonly single: WebGLRenderbuffer;
  private readonly bind: (target: GLenum, fb: WebGLFramebuffer | null) => void;
  private width = 0;
  private height = 0;

  constructor(private readonly gl: WebGL2RenderingContext) {
    this.msaa = gl.createFramebuffer()!;
    this.resolved = gl.createFramebuffer()!;
    this.colour = gl.createRenderbuffer()!;
    this.depth = gl.createRenderbuffer()!;
    this.single = gl.createRenderbuffer()!;
    const bind = gl.bindFramebuffer.bind(gl);
    this.bind = bind;
    // null is "the screen" to three.js: this target is its screen
    gl.bindFramebuffer = (target, fb) => bind(target, fb ?? this.msaa);
    // a copy out of the screen (the image-background cache) reads a resolved picture, as it does from the canvas's
    // multisampled buffer (a copy straight out of a multisampled framebuffer is an error)
    const copy = gl.copyTexSubImage2D.bind(gl);
    gl.copyTexSubImage2D = (target, level, xo, yo, x, y, w, h) => {
      if (gl.getParameter(gl.READ_FRAMEBUFFER_BINDING) !== this.msaa) return copy(target, level, xo, yo, x, y, w, h);
      this.resolve(x, y, w, h);
      bind(gl.READ_FRAMEBUFFER, this.resolved);
      copy(target, level, xo, yo, x, y, w, h);
      bind(gl.READ_FRAMEBUFFER, this.msaa);
    };
  }

  /** Sizes the target (its contents are undefined until drawn) and binds it as the screen. */
  setSize(width: number, height: number): void {
    if (width === this.width && height === this.height) return;
    const gl = this.gl;
    const rb = gl.getParameter(gl.RENDERBUFFER_BINDING) as WebGLRenderbuffer | null;
    gl.bindRenderbuffer(gl.RENDERBUFFER, this.colour);
    gl.renderbufferStorageMultisample(gl.RENDERBUFFER, SAMPLES, gl.RGBA8, width, height);
    gl.bindRenderbuffer(gl.RENDERBUFFER, this.depth);
    gl.renderbufferStorageMultisample(gl.RENDERBUFFER, SAMPLES, gl.DEPTH_COMPONENT24, width, height);
    gl.bindRenderbuffer(gl.RENDERBUFFER, this.single);
    gl.renderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, width, height);
    gl.bindRenderbuffer(gl.RENDERBUFFER, rb);
    const fb = gl.getParameter(gl.FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    this.bind(gl.FRAMEBUFFER, this.msaa);
    gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, this.colour);
    gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, this.depth);
    this.bind(gl.FRAMEBUFFER, this.resolved);
    gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, this.single);
    this.bind(gl.FRAMEBUFFER, fb);
    this.width = width;
    this.height = height;
  }

  /**
   * Reads a rectangle (WebGL's rows: y from the bottom) of the drawn picture into `out`, bottom row first, resolving
   * only that rectangle.
   */
  read(x: number, y: number, w: number, h: number, out: Uint8Array): void {
    const gl = this.gl;
    this.resolve(x, y, w, h);
    this.bind(gl.READ_FRAMEBUFFER, this.resolved);
    gl.readPixels(x, y, w, h, gl.RGBA, gl.UNSIGNED_BYTE, out);
    this.bind(gl.READ_FRAMEBUFFER, this.msaa);
  }

  /** Resolves a rectangle of the samples into the single-sampled buffer, as Chromium's resolve does (no scissor). */
  private resolve(x: number, y: number, w: number, h: number): void {
    const gl = this.gl;
    const scissor = gl.isEnabled(gl.SCISSOR_TEST);
    if (scissor) gl.disable(gl.SCISSOR_TEST);
    const read = gl.getParameter(gl.READ_FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    const draw = gl.getParameter(gl.DRAW_FRAMEBUFFER_BINDING) as WebGLFramebuffer | null;
    this.bind(gl.READ_FRAMEBUFFER, this.msaa);
    this.bind(gl.DRAW_FRAMEBUFFER, this.resolved);
    gl.blitFramebuffer(x, y, x + w, y + h, x, y, x + w, y + h, gl.COLOR_BUFFER_BIT, gl.NEAREST);
    this.bind(gl.READ_FRAMEBUFFER, read);
    this.bind(gl.DRAW_FRAMEBUFFER, draw);
    if (scissor) gl.enable(gl.SCISSOR_TEST);
  }
}
