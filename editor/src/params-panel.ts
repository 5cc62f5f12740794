// The parameters panel beside the preview: a control per parameter of the scene a render uses, made from its
// signature (the language's describeScene), by declared type: text for a String, a number for Number/Int/Float, a
// number with its unit for a unit type, a colour picker with the literal beside it for a Color, a checkbox for a Bool
// and a JSON field for a List or a record. Each control carries `data-param="<name>"` and starts at the default;
// a change is an argument at once (the page evaluates the preview with the same args), and the language's problems
// with the args (the service's 400 invalid_args messages) show under the control they name.
import { NUMBER_TYPES, UNIT_SUFFIXES, suffixDimension } from '../../src/lang/units.js';
import type { ArgProblem, Json, SceneParam, SceneSignature } from '../../src/lang/index.js';

export interface ParamsPanel {
  /** Shows the controls of `scene` (kept when its parameters are the same), or hides the panel when null. */
  show(scene: SceneSignature | null): void;
  /** The problems of the args, each under its control (the rest above the controls). */
  problems(list: readonly ArgProblem[]): void;
  /** The arguments set so far: every control changed from its default, and whatever setArgs gave. */
  args(): Record<string, unknown>;
  /** Sets the arguments (the controls follow); the panel reports a change. */
  setArgs(args: Record<string, unknown>): void;
}

const NUMBERS = new Set(['Number', 'Int', 'Float']);
const HEX6 = /^#[0-9a-fA-F]{6}$/;

/** `"800ms"` → [800, 'ms']; null for anything else. */
function splitUnit(v: unknown): [string, string] | null {
  if (typeof v !== 'string') return null;
  const m = /^(-?[0-9][0-9_]*(?:\.[0-9]+)?)([a-z%]+)$/.exec(v);
  return m ? [m[1]!, m[2]!] : null;
}

export function mountParamsPanel(box: HTMLElement, changed: () => void): ParamsPanel {
  const fields = box.querySelector<HTMLElement>('.params-fields')!;
  const general = box.querySelector<HTMLElement>('.params-problems')!;
  let shape = '';
  /** the arguments: only what was set (a default left alone is not sent) */
  let values: Record<string, unknown> = {};
  const notes = new Map<string, HTMLElement>();

  const set = (name: string, v: unknown) => {
    values = { ...values, [name]: v };
    changed();
  };

  function control(p: SceneParam): HTMLElement {
    const row = document.createElement('div');
    row.className = 'param';
    const label = document.createElement('label');
    label.textContent = `${p.name}: ${p.type}`;
    row.append(label);
    const current = Object.hasOwn(values, p.name) ? values[p.name] : p.default;
    const input = (type: string) => {
      const el = document.createElement('input');
      el.type = type;
      el.dataset.param = p.name;
      el.setAttribute('aria-label', p.name);
      return el;
    };
    if (p.refused) {
      const note = document.createElement('span');
      note.className = 'status';
      note.textContent = 'not an argument: the source sets it';
      row.append(note);
    } else if (p.type === 'String') {
      const el = input('text');
      el.value = typeof current === 'string' ? current : '';
      el.oninput = () => set(p.name, el.value);
      row.append(el);
    } else if (NUMBERS.has(p.type)) {
      const el = input('number');
      el.step = p.type === 'Int' ? '1' : 'any';
      el.value = typeof current === 'number' ? String(current) : '';
      el.oninput = () => set(p.name, el.value.trim() === '' ? el.value : Number(el.value));
      row.append(el);
    } else if (p.type === 'Bool') {
      const el = input('checkbox');
      el.checked = current === true;
      el.onchange = () => set(p.name, el.checked);
      row.append(el);
    } else if (p.type === 'Color') {
      const picker = input('color');
      const literal = input('text');
      literal.dataset.param = `${p.name}.literal`;
      const show = (v: unknown) => {
        literal.value = typeof v === 'string' ? v : '';
        if (typeof v === 'string' && HEX6.test(v)) picker.value = v.toLowerCase();
      };
      show(current);
      picker.oninput = () => {
        literal.value = picker.value;
        set(p.name, picker.value);
      };
      literal.oninput = () => {
        if (HEX6.test(literal.value)) picker.value = literal.value.toLowerCase();
        set(p.name, literal.value);
      };
      row.append(picker, literal);
    } else if (NUMBER_TYPES.get(p.type)) {
      const dim = NUMBER_TYPES.get(p.type)!;
      const num = input('number');
      num.step = 'any';
      const unit = document.createElement('select');
      unit.dataset.param = `${p.name}.unit`;
      unit.setAttribute('aria-label', `${p.name} unit`);
      for (const u of UNIT_SUFFIXES.filter((s) => suffixDimension(s) === dim)) unit.add(new Option(u, u));
      const show = (v: unknown) => {
        const parts = splitUnit(v);
        if (!parts) return;
        num.value = parts[0].replace(/_/g, '');
        unit.value = parts[1];
      };
      show(current);
      const update = () => set(p.name, `${num.value}${unit.value}`);
      num.oninput = update;
      unit.onchange = update;
      row.append(num, unit);
    } else {
      const el = document.createElement('textarea');
      el.dataset.param = p.name;
      el.setAttribute('aria-label', p.name);
      el.rows = 2;
      el.value = current === null ? '' : JSON.stringify(current);
      el.oninput = () => {
        try {
          set(p.name, JSON.parse(el.value) as Json);
        } catch {
          // not JSON yet: the note says so, and the last good value stays
          note.textContent = `${p.name}: not JSON yet`;
        }
      };
      row.append(el);
    }
    const note = document.createElement('span');
    note.className = 'status bad param-problem';
    note.dataset.problem = p.name;
    notes.set(p.name, note);
    row.append(note);
    return row;
  }

  return {
    show(scene) {
      box.hidden = !scene || scene.params.length === 0;
      const next = scene ? JSON.stringify(scene.params.map((p) => [p.name, p.type, p.default])) : '';
      if (next === shape) return;
      shape = next;
      fields.replaceChildren();
      notes.clear();
      if (!scene) return;
      // arguments of names the scene no longer has are dropped; the rest stay
      values = Object.fromEntries(Object.entries(values).filter(([k]) => scene.params.some((p) => p.name === k)));
      for (const p of scene.params) fields.append(control(p));
    },
    problems(list) {
      for (const n of notes.values()) n.textContent = '';
      const rest: string[] = [];
      for (const p of list) {
        const name = /^args\.([A-Za-z_][A-Za-z0-9_]*)/.exec(p.path)?.[1];
        const note = name ? notes.get(name) : undefined;
        if (note) note.textContent = note.textContent ? `${note.textContent}; ${p.message}` : p.message;
        else rest.push(p.message);
      }
      general.textContent = rest.join('\n');
    },
    args: () => ({ ...values }),
    setArgs(args) {
      values = { ...args };
      // the controls are made again from these values at the next show (the change's check)
      shape = '';
      changed();
    },
  };
}
