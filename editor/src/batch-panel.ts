// The Batch tab: rows pasted as CSV (a header of parameter names, each cell typed as a `--arg` value is, by the
// language's typedArg) or JSON lines (one object of args per line); a column or key `_name` names the row's file.
// Every row is checked against the scene's parameters as the rows or the source change (the language's
// describeScene, as the service's door checks them), and the rows are rendered through the service as one batch
// (POST /v1/batches) with the render panel's size and length: a list of the rows with their state, then the link
// to the archive of every output.
import { parse } from 'csv-parse/browser/esm/sync';
import { describeScene, typedArg } from '../../src/lang/index.js';
import { runBatch, type BatchView, type Kind } from './api.js';

export interface BatchPanelDeps {
  source(): string;
  assets(source: string): Record<string, string>;
  /** the render panel's size, rate and length */
  fields(): { width?: number; height?: number; fps?: number; duration?: number };
  /** the preview's time: a frame batch takes the frame on screen */
  time(): number;
}

export interface BatchRow {
  name: string;
  args: Record<string, unknown>;
  /** what does not fit the scene ('' when the row is good) */
  problem: string;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const NAME_RE = /^[A-Za-z0-9._-]{1,100}$/;

/** The pasted rows, each checked against `source`'s scene; throws with a sentence when the text is neither format. */
export function checkRows(text: string, source: string): BatchRow[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  let raw: { values: Record<string, unknown>; typed: boolean }[];
  if (trimmed.startsWith('{')) {
    raw = trimmed
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l, i) => {
        let v: unknown;
        try {
          v = JSON.parse(l);
        } catch (e) {
          throw new Error(`line ${i + 1}: not JSON (${(e as Error).message})`);
        }
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`line ${i + 1}: not a JSON object`);
        return { values: v as Record<string, unknown>, typed: false };
      });
  } else {
    const records = parse(trimmed, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
    raw = records.map((values) => ({ values, typed: true }));
  }
  const width = Math.max(3, String(raw.length - 1).length);
  const names = new Set<string>();
  return raw.map(({ values, typed }, i) => {
    const { _name, ...rest } = values;
    const name = _name === undefined || _name === '' ? String(i).padStart(width, '0') : String(_name);
    let args: Record<string, unknown> = rest;
    if (typed) {
      const scene = describeScene(source, rest).scene;
      args = Object.fromEntries(
        Object.entries(rest).map(([k, v]) => [k, typedArg(scene?.params.find((p) => p.name === k)?.type, String(v))]),
      );
    }
    let problem = '';
    if (!NAME_RE.test(name)) problem = `_name "${name}": letters, digits, ".", "_" or "-" only`;
    else if (names.has(name)) problem = `_name "${name}" is another row's too`;
    else problem = describeScene(source, args).problems[0]?.message ?? '';
    names.add(name);
    return { name, args, problem };
  });
}

export function mountBatchPanel(deps: BatchPanelDeps): { check(): BatchRow[] } {
  const ui = {
    rows: $<HTMLTextAreaElement>('batch-rows'),
    kind: $<HTMLSelectElement>('batch-kind'),
    render: $<HTMLButtonElement>('batch-render'),
    status: $<HTMLSpanElement>('batch-status'),
    list: $<HTMLOListElement>('batch-list'),
    archive: $<HTMLAnchorElement>('batch-archive'),
  };
  let rows: BatchRow[] = [];
  const item = (name: string, state: string, bad: boolean, url?: string) => {
    const li = document.createElement('li');
    li.dataset.name = name;
    li.dataset.state = state;
    if (bad) li.className = 'bad';
    const label = document.createElement(url ? 'a' : 'span');
    label.textContent = name;
    if (url) (label as HTMLAnchorElement).href = url;
    li.append(label, document.createTextNode(` ${state}`));
    return li;
  };
  function check(): BatchRow[] {
    ui.archive.hidden = true;
    try {
      rows = checkRows(ui.rows.value, deps.source());
    } catch (e) {
      rows = [];
      ui.list.replaceChildren();
      ui.status.textContent = (e as Error).message;
      ui.render.disabled = true;
      return rows;
    }
    ui.list.replaceChildren(...rows.map((r) => item(r.name, r.problem || 'ok', r.problem !== '')));
    const bad = rows.filter((r) => r.problem).length;
    ui.status.textContent =
      rows.length === 0
        ? ''
        : bad
          ? `${bad} of ${rows.length} rows do not fit the scene`
          : `${rows.length} rows fit the scene`;
    ui.render.disabled = rows.length === 0 || bad > 0;
    return rows;
  }
  let pending: ReturnType<typeof setTimeout> | undefined;
  ui.rows.addEventListener('input', () => {
    clearTimeout(pending);
    pending = setTimeout(check, 150);
  });
  // the source may have changed while the tab was closed: its rows are checked again when it opens
  $<HTMLDetailsElement>('batch').addEventListener('toggle', () => void check());
  let running: AbortController | null = null;
  ui.render.addEventListener('click', async () => {
    if (check().length === 0 || rows.some((r) => r.problem)) return;
    running?.abort();
    const ac = new AbortController();
    running = ac;
    const kind = ui.kind.value as Kind;
    const f = deps.fields();
    const params: Record<string, number | string> = {};
    const put = (k: string, v: number | undefined) => v !== undefined && Number.isFinite(v) && (params[k] = v);
    put('width', f.width);
    put('height', f.height);
    if (kind === 'frame') put('at', deps.time());
    else {
      put('fps', f.fps);
      put('duration', f.duration);
    }
    const source = deps.source();
    ui.status.textContent = `rendering ${rows.length} rows…`;
    const show = (v: BatchView) => {
      ui.list.replaceChildren(
        ...v.rows.map((r) =>
          item(r.name, r.status === 'error' ? `error ${r.code ?? ''}` : r.status, r.status === 'error', r.url),
        ),
      );
      ui.status.textContent = `${v.counts.ready + v.counts.error} of ${v.count} rows ended (${Math.round(v.progress * 100)}%)`;
    };
    try {
      const out = await runBatch(
        { kind, source, params, assets: deps.assets(source), rows: rows.map(({ name, args }) => ({ name, args })) },
        show,
        ac.signal,
      );
      if ('error' in out) {
        ui.status.textContent = `refused: ${out.error}`;
        return;
      }
      ui.status.textContent = `batch ${out.view.status}: ${out.view.counts.ready} of ${out.view.count} rows ready`;
      ui.archive.href = `/v1/batches/${out.view.batch_id}/archive`;
      ui.archive.hidden = false;
    } catch (e) {
      if (!ac.signal.aborted) ui.status.textContent = `failed: ${(e as Error).message}`;
    }
  });
  return { check };
}
