// Runner versions: which viewer behaviour a pinned source gets (viewer.md §9). The order of versions is the one
// list in the language package.
export { atLeast as runnerAtLeast } from '../../../src/lang/runners.js';
