// A thread's compiled programs by their key (the source, its runner pin inside it, and the scene's args): the
// estimate at admission compiles a job's program once, and every render of it in that thread (a frame, a whole
// video, each chunk of a long one) takes the same program instead of compiling again. Counts the compiles it made,
// so the renderer can say how many a job cost.
import { createHash } from 'node:crypto';
import { compile, CompileCache, type Compiled } from '../lang/index.js';
import { canonicalJson } from '../contract/canonical-json.js';

/** The key of a compiled program: the SHA-256 of its source and args (a PreparedJob's `program`). */
export function programKey(source: string, args: Record<string, unknown> | undefined): string {
  return createHash('sha256')
    .update(canonicalJson({ source, args: args ?? {} }))
    .digest('hex');
}

/** Programs a thread keeps (its renderer mirrors which: eval-thread.ts sends a job where its program is). */
export const PROGRAMS_KEPT = 8;

export class ProgramCache {
  private readonly programs = new Map<string, Compiled>();
  /** the parse and check of recent sources: compiles of one scene with other args share them */
  private readonly checked: CompileCache;
  /** the compiles this cache made (a hit is not one) */
  compiles = 0;

  constructor(private readonly size = PROGRAMS_KEPT) {
    this.checked = new CompileCache(size);
  }

  /** The compiled program of `source` with `args`: kept, or compiled now and kept (least recently used out). */
  compiled(source: string, args: Record<string, unknown> | undefined): Compiled {
    const key = programKey(source, args);
    const kept = this.programs.get(key);
    if (kept) {
      this.programs.delete(key);
      this.programs.set(key, kept);
      return kept;
    }
    const c = compile(source, { args, cache: this.checked });
    this.compiles++;
    this.programs.set(key, c);
    if (this.programs.size > this.size) this.programs.delete(this.programs.keys().next().value!);
    return c;
  }
}
