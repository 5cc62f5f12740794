// The sampled value tree the viewer reads (stdlib.md §5): the language's own type, re-exported with the
// narrowed variants the translators use. The viewer never evaluates anything itself.
import type { Value } from '../../../src/lang/value.js';

export type Val = Value;
export type ConstructedV = Extract<Value, { kind: 'constructed' }>;
