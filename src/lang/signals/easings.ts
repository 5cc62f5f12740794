// Easing curves of `animate ... with { easing: }` (stdlib.md §4.5). Only these seven names exist;
// every other name is linear.

export type Easing = (f: number) => number;

export const EASINGS: Record<string, Easing> = {
  'easing.linear': (f) => f,
  'easing.in_quad': (f) => f * f,
  'easing.out_quad': (f) => 1 - (1 - f) * (1 - f),
  'easing.in_out_quad': (f) => (f < 0.5 ? 2 * f * f : 1 - (2 - 2 * f) ** 2 / 2),
  'easing.in_cubic': (f) => f * f * f,
  'easing.out_cubic': (f) => 1 - (1 - f) ** 3,
  'easing.in_out_cubic': (f) => (f < 0.5 ? 4 * f * f * f : 1 - (2 - 2 * f) ** 3 / 2),
};

export const linear: Easing = EASINGS['easing.linear']!;

// a Map, not EASINGS[name]: a method call can yield a node named `toString`
const BY_NAME: ReadonlyMap<string, Easing> = new Map(Object.entries(EASINGS));

/** The curve of an easing name, or undefined. */
export function easingNamed(name: string): Easing | undefined {
  return BY_NAME.get(name);
}
