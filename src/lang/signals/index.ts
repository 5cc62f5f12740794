// The time signals (stdlib.md §4.4-§4.10): each resolves to its value at time t from its evaluated
// arguments, or null when malformed (the call then stays a plain node). `animate` is a syntactic
// form; the others are calls, dispatched by exact name in the evaluator.

export { animateAt, animateNode, interpolate, type Keyframe } from './animate.js';
export { bounceAt } from './bounce.js';
export { EASINGS, type Easing } from './easings.js';
export { SignalValues, shallowCopy, signalField } from './field-of.js';
export { noise, noiseAt } from './noise.js';
export { onEventAt } from './on-event.js';
export { waveAt } from './wave.js';
