// The viewer: one WebGLRenderer, camera and scene for the page's lifetime; each draw(value) translates an evaluated
// value tree into fresh three.js objects (cheap) over cached geometries, textures and compiled programs. It never
// evaluates anything: the value may come from the service (Node) or from the editor's in-page language alike.
import * as THREE from 'three';
import { EffectComposer } from 'three/examples/jsm/postprocessing/EffectComposer.js';
import { RenderPass } from 'three/examples/jsm/postprocessing/RenderPass.js';
import { UnrealBloomPass } from 'three/examples/jsm/postprocessing/UnrealBloomPass.js';
import { OutputPass } from 'three/examples/jsm/postprocessing/OutputPass.js';
import type { Val } from './build/value.js';
import { CAM_Z, FOV, designFrame, type DesignFrame } from './build/frame.js';
import { GeometryCache } from './build/cache.js';
import { ImageStore } from './build/assets.js';
import { buildTopLayers } from './build/builder.js';
import { frameContext, type BloomSettings, type BuildContext } from './build/context.js';
import { chosenCamera } from './build/camera.js';
import { i420Bytes, i420Converter } from '../../src/contract/yuv.js';
import { damage, screenBounds, type Box, type Rect, type Shown } from './damage.js';
import { MsaaTarget } from './msaa-target.js';

export type { Box };

/** The largest box of the scene aspect inside width × height, centred (service.md output size rule). */
export function fitBox(width: number, height: number, aspect: number): Box {
  let w = width,
    h = width / aspect;
  if (h > height) {
    h = height;
    w = height * aspect;
  }
  w = Math.min(width, Math.max(1, Math.round(w)));
  h = Math.min(height, Math.max(1, Math.round(h)));
  return { x: Math.round((width - w) / 2), y: Math.round((height - h) / 2), w, h };
}

function intersect(a: Box, b: Box): Box {
  const x = Math.max(a.x, b.x),
    y = Math.max(a.y, b.y);
  return { x, y, w: Math.min(a.x + a.w, b.x + b.w) - x, h: Math.min(a.y + a.h, b.y + b.h) - y };
}

export class Viewer {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera = new THREE.PerspectiveCamera(FOV, 16 / 9, 0.1, 100);
  readonly images = new ImageStore();
  readonly geometries = new GeometryCache();
  font: unknown | null = null;
  /** the runner version of the job (viewer.md §9 gates); set by reset() */
  runner = '';
  width = 0;
  height = 0;
  /** Q4: the background persists across frames of one job until a new frame rect or image replaces it */
  private background: THREE.Color | THREE.Texture = new THREE.Color(0, 0, 0);
  private backgroundImagePath: string | null = null;
  /** this job keeps alpha (load's `transparent`): the canvas stays clear until a frame names a background */
  private transparent = false;
  /** a frame of this job has named a background (which then persists, Q4) */
  private backgroundNamed = false;
  private prevMaterials: THREE.Material[] = [];
  private prevInstances: THREE.InstancedMesh[] = [];
  private composer: EffectComposer | null = null;
  private renderPass: RenderPass | null = null;
  private bloomPass: UnrealBloomPass | null = null;
  private composerSize = { w: 0, h: 0 };
  lastFrame: DesignFrame | null = null;
  /** the key of the value (and image state) the drawing buffer currently shows; an identical frame is not redrawn */
  private drawnKey: string | null = null;
  /** frames drawn and frames skipped because their tree equalled the one on screen */
  drawCount = 0;
  skipCount = 0;
  lastDrew = true;
  private pixelCache: Uint8Array | null = null;
  private pixelCacheKey = '';
  /** what the canvas shows (layer keys and bounds), to find the next frame's damage; null: nothing known */
  private shown: Shown | null = null;
  /** the part of the canvas the last draw changed (top row 0), or null when it drew the whole canvas */
  lastDamage: Rect | null = null;
  lastDrawMs = 0;
  warnings: string[] = [];
  /**
   * Image backgrounds are drawn once per job and then copied (see renderImageBackground): the background pass's
   * pixels, what it was drawn from, and the scene that copies them back texel for texel.
   */
  private bgCache: THREE.FramebufferTexture | null = null;
  private bgCacheKey: string | null = null;
  private readonly bgScene = new THREE.Scene();
  private readonly bgCopyScene = new THREE.Scene();
  private readonly bgCopyMaterial = new THREE.ShaderMaterial({
    uniforms: { tCache: { value: null as THREE.Texture | null }, uOffset: { value: new THREE.Vector2() } },
    vertexShader: 'void main() { gl_Position = vec4(position.xy, 0.0, 1.0); }',
    // the stored 8-bit values, unfiltered and unconverted: v/255 written back to an 8-bit target is v again
    fragmentShader:
      'uniform sampler2D tCache;\nuniform vec2 uOffset;\nvoid main() { gl_FragColor = texelFetch(tCache, ivec2(gl_FragCoord.xy - uOffset), 0); }',
    depthTest: false,
    depthWrite: false,
    toneMapped: false,
  });

  /** the target frames are drawn into in place of the canvas (`offscreen`), else null */
  private readonly target: MsaaTarget | null;

  /**
   * `offscreen` (the service's page, which nobody looks at): frames are drawn into a target of the viewer's own
   * (msaa-target.ts), so a read back resolves only what it reads; the canvas shows nothing.
   */
  constructor(
    readonly canvas: HTMLCanvasElement,
    { offscreen = false }: { offscreen?: boolean } = {},
  ) {
    // alpha: a transparent job (load's `transparent`) keeps alpha 0 where no background is drawn; an opaque job
    // clears to alpha 1 and pixels() sets alpha 255 anyway, so its RGB (and so its bytes) is what it was without it.
    // An offscreen viewer's canvas is never drawn on: its own buffer need not be multisampled.
    this.renderer = new THREE.WebGLRenderer({
      canvas,
      antialias: !offscreen,
      preserveDrawingBuffer: true,
      alpha: true,
    });
    this.target = offscreen ? new MsaaTarget(this.renderer.getContext() as WebGL2RenderingContext) : null;
    this.renderer.setPixelRatio(1);
    this.renderer.outputColorSpace = THREE.SRGBColorSpace;
    this.renderer.toneMapping = THREE.NoToneMapping;
    this.camera.position.set(0, 0, CAM_Z);
    this.camera.lookAt(0, 0, 0);
    canvas.addEventListener('webglcontextlost', () => {
      this.contextLost = true;
    });
    const quad = new THREE.Mesh(new THREE.PlaneGeometry(2, 2), this.bgCopyMaterial);
    quad.frustumCulled = false;
    this.bgCopyScene.add(quad);
  }

  /** set when the browser dropped the WebGL context (the page must be reloaded) */
  contextLost = false;

  /** Start a new job: drop the previous job's resources, size the canvas. */
  reset(width: number, height: number, runner: string, transparent = false): void {
    // A glyph's geometry is a function of the one font, its key and the job's runner and size: a job of the same
    // runner and size keeps the previous job's (a batch of one scene extrudes its text once, not once a job; the
    // homepage's glyph is about 30 ms of a 1080p frame job). The rest (images, paths, vectorized pictures) goes.
    const sameGlyphs = runner === this.runner && width === this.width && height === this.height;
    this.runner = runner;
    this.transparent = transparent;
    this.backgroundNamed = false;
    // the previous job's materials are released only after this job's first draw, like every frame's: until
    // then they keep their compiled programs alive, and a job drawing the same kinds of material (most jobs) does
    // not wait for SwiftShader to compile them again (about 50 ms for a plain colour, more for a lit one)
    this.scene.clear();
    this.geometries.clear(sameGlyphs ? (key) => key.startsWith('glyph') : undefined);
    this.images.clear();
    this.background = new THREE.Color(0, 0, 0);
    this.backgroundImagePath = null;
    this.lastFrame = null;
    this.drawnKey = null;
    this.pixelCache = null;
    this.shown = null;
    this.lastDamage = null;
    this.drawCount = 0;
    this.skipCount = 0;
    this.dropBackgroundCache();
    if (width !== this.width || height !== this.height) {
      this.width = width;
      this.height = height;
      this.renderer.setSize(width, height, true);
      this.target?.setSize(width, height);
    }
  }

  /**
   * Draws a value tree synchronously (its images must have been loaded or failed already). With a key, a value
   * whose key equals the one on screen (and no image arrived since) is not drawn again: the drawing buffer is
   * preserved, so the pixels are already there. Returns whether it drew.
   */
  draw(value: Val, key?: string): boolean {
    if (this.contextLost) throw new Error('WebGL context lost: reload the page');
    const t0 = performance.now();
    const fullKey = key === undefined ? null : `${this.images.settled}|${key}`;
    if (fullKey !== null && fullKey === this.drawnKey) {
      this.skipCount++;
      this.lastDrew = false;
      this.lastDrawMs = performance.now() - t0;
      return false;
    }
    this.lastDrew = true;
    this.drawnKey = null;
    this.pixelCache = null;
    this.build(value);
    this.drawnKey = fullKey;
    this.drawCount++;
    this.lastDrawMs = performance.now() - t0;
    return true;
  }

  private build(value: Val): void {
    const frame = designFrame(value);
    this.lastFrame = frame;
    const { ctx, warnings } = frameContext(frame, {
      runner: this.runner,
      font: this.font,
      geometries: this.geometries,
      images: this.images,
    });
    const root = buildTopLayers(frame.layers, ctx);
    this.warnings = warnings;

    // background (Q4: persists when this frame names none)
    if (frame.background.kind === 'color') {
      const [r, g, b] = frame.background.rgb;
      this.background = new THREE.Color().setRGB(r, g, b, THREE.LinearSRGBColorSpace);
      this.backgroundImagePath = null;
      this.backgroundNamed = true;
    } else if (frame.background.kind === 'image') {
      this.backgroundImagePath = frame.background.path;
      this.backgroundNamed = true;
      this.background = this.images.texture(frame.background.path);
    } else if (this.backgroundImagePath !== null) {
      this.background = this.images.texture(this.backgroundImagePath); // may have finished loading since
    }

    const scene = this.scene;
    scene.clear();
    scene.background = this.clear ? null : this.background;
    scene.add(root);
    for (const l of ctx.lights) scene.add(l);

    const cam = this.camera;
    const { fovDeg: fov, z } = chosenCamera(ctx.camera, frame);
    if (cam.fov !== fov || cam.aspect !== frame.aspect || cam.position.z !== z) {
      cam.fov = fov;
      cam.aspect = frame.aspect;
      cam.position.set(0, 0, z);
      cam.far = Math.max(100, z * 4);
      cam.lookAt(0, 0, 0);
      cam.updateProjectionMatrix();
    }

    // partial redraw: only where changed layers were or now are (damage.ts); bloom spreads light across the
    // whole frame, so a frame with bloom is drawn whole
    root.updateMatrixWorld(true);
    cam.updateMatrixWorld();
    const box = fitBox(this.width, this.height, frame.aspect);
    const next = this.shownAfter(frame, ctx, root, box);
    this.lastDamage = ctx.bloom ? null : damage(this.shown, next, this.width, this.height);
    this.shown = null; // until the draw below has happened
    this.render(box, ctx.bloom, this.lastDamage);
    this.shown = next;

    // release the previous frame's materials only now: the new ones already hold the compiled programs
    for (const m of this.prevMaterials) m.dispose();
    this.prevMaterials = ctx.materials;
    for (const m of this.prevInstances) m.dispose();
    this.prevInstances = ctx.instances;
    this.geometries.endFrame();
  }

  /** What the canvas will show once this frame is drawn: the global state and each layer's key and bounds. */
  private shownAfter(frame: DesignFrame, ctx: BuildContext, root: THREE.Object3D, box: Box): Shown {
    const bounds = new Map<number, Rect | null>();
    for (const o of root.children)
      bounds.set(o.userData.cmLayer as number, screenBounds(o, this.camera, box, this.width, this.height));
    const lights = ctx.lights.map((l) => [
      l.type,
      l.color.toArray(),
      l.intensity,
      l.position.toArray(),
      (l as THREE.PointLight).distance ?? null,
      (l as THREE.PointLight).decay ?? null,
    ]);
    const global = JSON.stringify({
      size: [this.width, this.height],
      box,
      frame: [frame.widthPx, frame.heightPx, frame.aspect, frame.p2w],
      // an image background: the texture and its state (a new version is drawn again, and re-cached)
      background:
        this.background instanceof THREE.Color
          ? this.background.toArray()
          : [this.background.uuid, this.background.version, this.scene.backgroundIntensity],
      lights,
      camera: [this.camera.fov, this.camera.aspect, this.camera.position.toArray()],
      // bloom spreads light over the whole frame: a frame after one with bloom (or with other settings) is whole
      bloom: ctx.bloom,
      images: this.images.settled,
    });
    return {
      global,
      // a layer that built nothing draws nothing: an empty bound
      layers: frame.layers.map((l, i) => ({
        key: JSON.stringify(l),
        bounds: bounds.has(i) ? bounds.get(i)! : { x: 0, y: 0, width: 0, height: 0 },
      })),
    };
  }

  /** no background is drawn: the canvas is cleared to alpha 0 (a transparent job whose frames named none yet) */
  private get clear(): boolean {
    return this.transparent && !this.backgroundNamed;
  }

  private render(box: Box, bloom: BloomSettings | null, damaged: Rect | null): void {
    const r = this.renderer;
    // margins take the scene's background colour (black for an image background)
    r.setRenderTarget(null);
    r.setViewport(0, 0, this.width, this.height);
    r.setClearColor(
      this.background instanceof THREE.Color ? this.background : new THREE.Color(0, 0, 0),
      this.clear ? 0 : 1,
    );
    // WebGL counts rows from the bottom
    const d = damaged && {
      x: damaged.x,
      y: this.height - damaged.y - damaged.height,
      w: damaged.width,
      h: damaged.height,
    };
    if (d) r.setScissor(d.x, d.y, d.w, d.h);
    r.setScissorTest(d !== null);
    r.clear(true, true, true);
    const s = d ? intersect(box, d) : box;
    if (s.w <= 0 || s.h <= 0) {
      r.setScissorTest(false);
      return;
    }
    r.setViewport(box.x, box.y, box.w, box.h);
    r.setScissor(s.x, s.y, s.w, s.h);
    r.setScissorTest(true);
    if (!bloom && this.background instanceof THREE.Texture) {
      this.renderImageBackground(this.background, box);
    } else if (!bloom) {
      r.render(this.scene, this.camera);
    } else {
      const composer = this.ensureComposer(box.w, box.h);
      this.bloomPass!.strength = bloom.strength;
      this.bloomPass!.radius = bloom.radius;
      this.bloomPass!.threshold = bloom.threshold;
      composer.render();
    }
    r.setScissorTest(false);
  }

  /**
   * A frame over an image background, drawn in two passes with the same pixels as one render of the scene with
   * `scene.background = texture`. three.js draws such a background first, as a viewport-filling quad without
   * depth test or depth write, after clearing colour and depth; the scene's objects follow. SwiftShader pays
   * for that quad's filtered sRGB texture lookups on every pixel of every frame, yet its output only depends on
   * the texture and the viewport. So the first frame draws the background alone (the very same three.js pass),
   * copies the box's pixels into an 8-bit texture (the copy resolves the multisampled buffer: every sample of a
   * fully covered pixel holds the same value), and draws the objects over it without clearing. Later frames
   * clear colour and depth and write the stored values back with an unfiltered texelFetch quad (each sample
   * gets exactly the stored value), then draw the objects. Every sample holds what the single pass would have
   * put there, so the MSAA resolve (object edges blend with the background) gives the same pixels.
   */
  private renderImageBackground(texture: THREE.Texture, box: Box): void {
    const r = this.renderer;
    const key = `${texture.uuid}|${texture.version}|${this.scene.backgroundIntensity}|${box.x},${box.y},${box.w},${box.h}|${this.width}x${this.height}`;
    if (this.bgCacheKey !== key || !this.bgCache) {
      this.bgScene.background = texture;
      this.bgScene.backgroundIntensity = this.scene.backgroundIntensity;
      r.render(this.bgScene, this.camera);
      if (!this.bgCache || this.bgCache.image.width !== box.w || this.bgCache.image.height !== box.h) {
        this.bgCache?.dispose();
        this.bgCache = new THREE.FramebufferTexture(box.w, box.h);
      }
      r.copyFramebufferToTexture(this.bgCache, new THREE.Vector2(box.x, box.y));
      this.bgCacheKey = key;
    } else {
      this.bgCopyMaterial.uniforms.tCache.value = this.bgCache;
      this.bgCopyMaterial.uniforms.uOffset.value.set(box.x, box.y);
      r.render(this.bgCopyScene, this.camera); // autoClear: colour (the clear colour, then overwritten) and depth
    }
    const bg = this.scene.background;
    this.scene.background = null;
    r.autoClear = false;
    try {
      r.render(this.scene, this.camera);
    } finally {
      r.autoClear = true;
      this.scene.background = bg;
    }
  }

  private dropBackgroundCache(): void {
    this.bgCache?.dispose();
    this.bgCache = null;
    this.bgCacheKey = null;
    this.bgScene.background = null;
    this.bgCopyMaterial.uniforms.tCache.value = null;
  }

  private ensureComposer(w: number, h: number): EffectComposer {
    if (!this.composer) {
      const target = new THREE.WebGLRenderTarget(w, h, { type: THREE.HalfFloatType });
      this.composer = new EffectComposer(this.renderer, target);
      this.composer.setPixelRatio(1);
      this.renderPass = new RenderPass(this.scene, this.camera);
      this.bloomPass = new UnrealBloomPass(new THREE.Vector2(w, h), 0.8, 0.4, 0.6);
      this.composer.addPass(this.renderPass);
      this.composer.addPass(this.bloomPass);
      this.composer.addPass(new OutputPass());
      this.composerSize = { w: 0, h: 0 };
    }
    if (this.composerSize.w !== w || this.composerSize.h !== h) {
      this.composer.setSize(w, h);
      this.composerSize = { w, h };
    }
    return this.composer;
  }

  /**
   * The drawing buffer (or a rectangle of it: even sides and offsets) as I420 (BT.709 limited range), converted
   * here in JavaScript by the code Node uses (src/contract/yuv.ts), so the bytes are Node's rgbaToI420(pixels());
   * 1.5 bytes a pixel leave the page. (A fragment-shader conversion gave the same bytes, but SwiftShader took
   * 70-100 ms of CPU a 1080p frame for it, against about 25 ms for this loop after a plain read back.) The buffer
   * is padded to whole 32-bit words for the page's run-length packing; the returned view is the picture.
   */
  pixelsI420(rect: Rect = this.whole()): Uint8Array {
    const bytes = i420Bytes(rect.width, rect.height);
    const out = new Uint8Array((bytes + 3) & ~3);
    const c = i420Converter(this.readBack(rect), rect.width, rect.height, { bottomUp: true, out });
    c.rows(0, rect.height);
    return out.subarray(0, bytes);
  }

  private whole(): Rect {
    return { x: 0, y: 0, width: this.width, height: this.height };
  }

  /** The drawing buffer (or a rectangle of it, top row 0) as read: bottom row first; read once per drawn frame. */
  private readBack(rect: Rect): Uint8Array {
    const { x, y, width: w, height: h } = rect;
    const key = `${this.drawCount}|${x},${y},${w},${h}`;
    if (!(this.pixelCache && this.pixelCacheKey === key)) {
      const gl = this.renderer.getContext();
      const raw = new Uint8Array(w * h * 4);
      this.renderer.setRenderTarget(null);
      gl.bindFramebuffer(gl.FRAMEBUFFER, null);
      if (this.target) this.target.read(x, this.height - y - h, w, h, raw);
      else gl.readPixels(x, this.height - y - h, w, h, gl.RGBA, gl.UNSIGNED_BYTE, raw);
      this.pixelCache = raw;
      this.pixelCacheKey = key;
    }
    return this.pixelCache;
  }

  /**
   * The whole drawing buffer as read: bottom row first, alpha as drawn. The read itself, not a copy (callers only
   * read it): a PNG packs the rows bottom-up and, for an opaque job, drops alpha itself, so the page spends nothing
   * on a flip, an alpha pass and a copy of the picture (about 7 ms of a 1080p frame).
   */
  pixelsAsRead(): Uint8Array {
    return this.readBack(this.whole());
  }

  /** RGBA of the drawing buffer (or a rectangle of it), top row first (a copy of the last read when nothing was drawn since). */
  pixels(rect: Rect = this.whole()): Uint8Array {
    const w = rect.width,
      h = rect.height;
    // the cache holds the buffer as read (bottom row first); every call returns a fresh flipped copy of it, so
    // one read costs one copy (not a flip plus a second copy kept for later calls)
    const raw = this.readBack(rect);
    const out = new Uint8Array(w * h * 4);
    const row = w * 4;
    for (let y = 0; y < h; y++) out.set(raw.subarray((h - 1 - y) * row, (h - y) * row), y * row);
    if (!this.transparent) {
      for (let i = 3; i < out.length; i += 4) out[i] = 255;
    } else {
      // blending over a clear canvas leaves colour times alpha (three.js's normal blending): back to straight alpha,
      // which PNG, WebP and ffmpeg's RGBA input mean
      for (let i = 0; i < out.length; i += 4) {
        const a = out[i + 3]!;
        if (a === 0 || a === 255) continue;
        for (let c = 0; c < 3; c++) out[i + c] = Math.min(255, Math.round((out[i + c]! * 255) / a));
      }
    }
    return out;
  }
}
