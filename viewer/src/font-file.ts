// The one font the language draws text with (viewer.md §5.6.1): DM Sans Bold v1.200, the version the reference
// runners use (unitsPerEm 1000, hhea 992/-310, cap 700, x-height 496). Newer DM Sans releases (4.x) move the
// outlines by a few units, which shows in extruded glyphs, so the package version is pinned exactly.
/** Resolved from node_modules by the build script and the tests. */
export const FONT_PACKAGE_FILE = '@fontsource/dm-sans/files/dm-sans-all-700-normal.woff';
/** The name the viewer page fetches it by, next to viewer.js. */
export const FONT_SERVED_NAME = 'DMSans-Bold.woff';
