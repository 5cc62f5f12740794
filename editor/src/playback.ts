// The preview's time: the scrubber, Play and Pause, and the draw loop that draws the current time (in the page by
// the drawer, or the service's frame with the server switch on), one draw at a time, calls made meanwhile
// collapsing into one more draw after it.
import type { Program } from '../../src/lang/index.js';
import type { Preview, PreviewOutcome } from './preview.js';

/** The last source without errors, compiled. */
export interface GoodScene {
  program: Program;
  source: string;
  /** the design frame's width / height at t = 0 */
  aspect: number;
  /** no time signal is read: the same picture at every t, so there is no time to scrub or play */
  still?: boolean;
  /** the scene's arguments the program was compiled with (the parameters panel's), for the server preview */
  args?: Record<string, unknown>;
}

export interface PlaybackDeps {
  preview: Preview;
  scene(): GoodScene | null;
  /** the uploads a source names: in-source path -> asset key */
  assets(source: string): Record<string, string>;
  /** a drawn preview clears a failure shown before; a failed one shows its message */
  drawn(outcome: PreviewOutcome): void;
}

export class Playback {
  t = 0;
  playing = false;
  drawing = false;
  previews = 0;
  firstPreviewMs: number | null = null;
  private drawAgain = false;
  private lastTick = 0;
  private readonly $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  private readonly stage = this.$<HTMLDivElement>('stage');
  private readonly play = this.$<HTMLButtonElement>('play');
  private readonly scrubber = this.$<HTMLInputElement>('scrubber');
  private readonly time = this.$<HTMLOutputElement>('time');
  private readonly serverMode = this.$<HTMLInputElement>('server-mode');

  constructor(private readonly deps: PlaybackDeps) {
    this.play.onclick = () => this.setPlaying(!this.playing);
    this.scrubber.oninput = () => {
      this.t = Number(this.scrubber.value);
      this.requestDraw();
    };
    this.serverMode.onchange = () => this.requestDraw();
    new ResizeObserver(() => {
      this.layout();
      this.requestDraw();
    }).observe(this.stage);
  }

  /** A new good scene: the scrubber's range follows its duration. */
  sceneChanged(scene: GoodScene): void {
    this.scrubber.max = String(scene.program.durationSeconds);
    if (this.t > scene.program.durationSeconds) this.t = 0;
    // a still has no time to scrub through: no 6 s scrubber and no Play for a picture that never changes
    const still = scene.still === true;
    this.play.hidden = still;
    this.scrubber.hidden = still;
    if (still && this.playing) this.setPlaying(false);
    this.layout();
    this.requestDraw();
  }

  layout(): void {
    const scene = this.deps.scene();
    if (!scene) return;
    const r = this.stage.getBoundingClientRect();
    this.deps.preview.resize({ width: r.width - 2, height: r.height - 2 }, scene.aspect, devicePixelRatio);
  }

  private showTime(): void {
    const scene = this.deps.scene();
    const d = scene?.program.durationSeconds ?? 0;
    this.scrubber.value = String(this.t);
    this.time.value = scene?.still ? 'a still (no animation)' : `${this.t.toFixed(2)} s / ${d.toFixed(2)} s`;
    this.scrubber.setAttribute('aria-valuetext', `${this.t.toFixed(2)} seconds of ${d.toFixed(2)}`);
  }

  /** Draws the current time once; calls made while a draw runs collapse into one more draw after it. */
  requestDraw(): void {
    this.showTime();
    if (this.drawing) {
      this.drawAgain = true;
      return;
    }
    void this.drawLoop();
  }

  private async drawLoop(): Promise<void> {
    this.drawing = true;
    try {
      do {
        this.drawAgain = false;
        const scene = this.deps.scene();
        if (!scene) break;
        const input = { ...scene, t: this.t, playing: this.playing, assets: this.deps.assets(scene.source) };
        let out: PreviewOutcome;
        try {
          const p = this.deps.preview;
          out = this.serverMode.checked ? await p.drawServer(input) : await p.drawLocal(input);
        } catch (e) {
          out = { ok: false, message: e instanceof Error ? e.message : String(e) };
        }
        if (out.ok) {
          this.previews++;
          if (this.firstPreviewMs === null) {
            this.firstPreviewMs = performance.now();
            performance.mark('cm-first-preview');
          }
        }
        this.deps.drawn(out);
      } while (this.drawAgain);
    } finally {
      this.drawing = false;
    }
  }

  private tick = (now: number): void => {
    if (!this.playing) return;
    const d = this.deps.scene()?.program.durationSeconds ?? 0;
    if (d > 0) {
      this.t = (this.t + (now - this.lastTick) / 1000) % d;
      this.requestDraw();
    }
    this.lastTick = now;
    requestAnimationFrame(this.tick);
  };

  setPlaying(on: boolean): void {
    this.playing = on;
    this.play.textContent = on ? 'Pause' : 'Play';
    this.play.setAttribute('aria-pressed', String(on));
    if (on) {
      this.lastTick = performance.now();
      requestAnimationFrame(this.tick);
    }
  }
}
