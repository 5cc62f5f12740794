// The page as `cmrender open FILE` serves it (its URL carries `?open`): the source is the file's, read from
// GET /v1/open/source (src/server/routes/open-file.ts) at every load, and the page follows the file by polling that
// route with the ETag it has (an unchanged file is a 304 with no body). When the file changes on disk the page
// takes it, even over edits made in the page since (the file is the source of truth; the replacement is an
// ordinary edit, so undo brings those edits back). Nothing is written back to the file.
// Only this page may read the file: its URL's `?open=<token>` goes with every read (the route refuses a request
// without it, and any other origin).
const ROUTE = '/v1/open/source';
/** The header the route reads the token from (src/server/routes/open-file.ts's OPEN_TOKEN_HEADER). */
const TOKEN_HEADER = 'x-cmrender-open-token';
/** How often the file is asked for while the page is visible: a change shows within about this. */
const POLL_MS = 400;

/** Whether this page was opened by `cmrender open`. */
export const openedByCli = (search = location.search) => new URLSearchParams(search).has('open');

export interface OpenFileDeps {
  /** replaces the source (an edit undo can take back) and previews it */
  setSource(source: string): void;
  status(text: string, bad: boolean): void;
}

export class OpenFile {
  private etag: string | null = null;
  private name = 'the file';
  private timer: ReturnType<typeof setTimeout> | undefined;

  private readonly token = new URLSearchParams(location.search).get('open') ?? '';

  constructor(private readonly deps: OpenFileDeps) {}

  /** The file's text now, or null when it cannot be read (the next poll tries again). */
  async read(): Promise<string | null> {
    const r = await this.fetch();
    return r?.text ?? null;
  }

  /** Polls the file from now on, taking each new version. */
  follow(): void {
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden) this.schedule(0);
    });
    this.schedule(POLL_MS);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), ms);
  }

  private async poll(): Promise<void> {
    if (document.hidden) return; // visibilitychange resumes it
    const r = await this.fetch();
    if (r) {
      this.deps.setSource(r.text);
      this.deps.status(`Reloaded ${this.name}: it changed on disk`, false);
    }
    this.schedule(POLL_MS);
  }

  /** A new version of the file, or null (unchanged, unreadable, or the service gone). */
  private async fetch(): Promise<{ text: string } | null> {
    try {
      const headers: Record<string, string> = { [TOKEN_HEADER]: this.token };
      if (this.etag) headers['if-none-match'] = this.etag;
      const res = await fetch(ROUTE, { headers, cache: 'no-store' });
      if (res.status !== 200) return null;
      const etag = res.headers.get('etag');
      if (etag !== null && etag === this.etag) return null;
      this.etag = etag;
      const m = /filename\*=UTF-8''([^;]+)/.exec(res.headers.get('content-disposition') ?? '');
      if (m) this.name = decodeURIComponent(m[1]!);
      return { text: await res.text() };
    } catch {
      return null;
    }
  }
}
