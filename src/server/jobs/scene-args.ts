// The check of a scene job's `args` (a job's and a batch row's admission, /v1/check, the standalone runner): the
// source is parsed only (the language's describeScene; no evaluation on the event loop) and the args bound to the
// scene they render, so args that do not fit are a 400 `invalid_args` with one entry per problem before anything is
// queued or drawn.
import { describeScene, type SceneDescription } from '../../lang/index.js';
import { invalidArgs } from '../../contract/service-error.js';

/** The scene a render of `source` uses with `args`; throws 400 invalid_args when they do not fit it. */
export function checkedSceneArgs(source: string, args: unknown): SceneDescription {
  const d = describeScene(source, args);
  if (d.problems.length > 0) throw invalidArgs(d.problems);
  return d;
}
