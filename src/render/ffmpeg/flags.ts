// The argument fragments every ffmpeg call here shares: quiet output, and the flags that make the bytes repeatable.

/** Errors only on stderr (which the process captures for the failure message), no banner. */
export const QUIET = ['-hide_banner', '-loglevel', 'error'];

/** No metadata, no version strings, bit-exact muxing: the same packets give the same file bytes every run. */
export const BITEXACT = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-bitexact'];
