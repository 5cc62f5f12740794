// Test double for the language, used ONLY by the viewer tests (helper.ts bundle("json")) to draw value trees:
// the "source" is a JSON document holding an already sampled value tree (stdlib.md §5), or
// {"duration": s, "runner": "0.0.3", "frames": [[t0, value0], [t1, value1], ...]} (the last frame with
// t_i <= t is used).
// Its errors look like the language's: {"error": {"code", "message", "line", "column"}} fails sceneAt.
type V = any;
export function compile(source: string) {
  let doc: V;
  try { doc = JSON.parse(source); } catch (e) {
    return { ok: false, diagnostics: [{ severity: 'error', code: 'PAR100', message: 'not JSON', line: 1, column: 1 }], runner: '0.0.13', program: null };
  }
  const frames: [number, V][] = doc && Array.isArray(doc.frames) ? doc.frames : [[0, doc]];
  const runner = typeof doc?.runner === 'string' ? doc.runner : '0.0.13';
  const program = {
    durationSeconds: typeof doc?.duration === 'number' ? doc.duration : 6,
    runner,
    sceneAt(t: number) {
      let v = frames[0][1];
      for (const [ti, vi] of frames) if (ti <= t) v = vi;
      if (v && v.error) return { value: { kind: 'nil' }, diagnostics: [{ severity: 'error', ...v.error }] };
      return { value: v, diagnostics: [] };
    },
  };
  return { ok: true, diagnostics: [], runner, program };
}
