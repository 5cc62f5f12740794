// The time signals written as calls, by their exact name (stdlib.md §4.3: `anim.wave(...)` is
// not `wave`). `animate` is a syntactic form; see animate.ts.

import type { EvalFailure } from '../eval-failure';
import type { Field, Value } from '../value';
import { bounceAt } from './bounce';
import { noiseAt } from './noise';
import { onEventAt } from './on-event';
import { waveAt } from './wave';

/** A signal's value at t (seconds); null when the call is malformed and stays a plain node. */
export type CallSignal = (fields: readonly Field[], t: number) => Value | EvalFailure | null;

export const CALL_SIGNALS: ReadonlyMap<string, CallSignal> = new Map<string, CallSignal>([
  ['wave', waveAt],
  ['bounce', bounceAt],
  ['on_event', onEventAt],
  ['noise', noiseAt],
]);

export { animateAt, animateNode, interpolate, type Keyframe } from './animate';
export { EASINGS, type Easing } from './easings';
export { noise } from './noise';
