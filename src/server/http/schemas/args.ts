// A scene job's `args` (docs/language.md "Scene arguments"): the rendered scene's parameter names to JSON values. The
// schema only says it is an object; what each value must be is the scene's declaration, checked at the door by the
// language (describeScene), so a wrong one is a 400 `invalid_args` with one entry per problem before anything is queued.
import { z } from 'zod';
import { MAX_ARGS_BYTES, MAX_ARG_LIST, MAX_ARG_STRING } from '../../../lang/index.js';

export const ARGS_NOT_OBJECT = 'args must be an object of the scene parameter names to values';

export const Args = z
  .record(z.string(), z.unknown(), { error: ARGS_NOT_OBJECT })
  .optional()
  .meta({
    description: `Added: the rendered scene's arguments, by parameter name, typed by its declaration (String: a JSON string, drawn exactly as given; Number; Bool; a unit type such as Duration: a string literal like "2s"; Color: "#ff3399" or "oklch(0.7, 0.1, 200)"; List<T>: an array; a record: an object). With args, the first scene whose required parameters they all give renders. At most ${MAX_ARGS_BYTES} bytes of JSON, strings of ${MAX_ARG_STRING} characters, lists of ${MAX_ARG_LIST} elements. \`POST /v1/check\` answers the scene's signature and the JSON Schema of its args.`,
    examples: [{ name: 'Ana', accent: '#00ff00', hold: '2s' }],
  });
