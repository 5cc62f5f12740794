// Plain reasons for failures that come from inside (the page's exceptions, Node's errors): a client reads what
// happened in words, never an internal message ("Invalid array length", a stack line, a file path). The raw text
// goes to the log only.
import { isNoSpace } from '../contract/no-space.js';
import { NO_SPACE_REASON } from '../contract/job-reasons.js';

export { isNoSpace };

/** An error the drawing page reported ({code, message} of the page API). */
export interface PageError {
  code: string;
  message: string;
}

const OUT_OF_MEMORY =
  /invalid (array|typed array|string) length|out of memory|allocation failed|array buffer allocation|maximum call stack/i;

/** The reason a client sees for an error the drawing page reported (ASS001 is placed by the caller). */
export function pageReason(e: PageError): string {
  switch (e.code) {
    case 'draw_failed':
      return OUT_OF_MEMORY.test(e.message)
        ? 'render failed: the frame is too large to draw (the drawing page ran out of memory building it)'
        : 'render failed: the drawing page could not draw this frame';
    case 'context_lost':
      return 'render failed: the drawing page lost its WebGL context';
    case 'font_unavailable':
      return 'render failed: the text font could not be loaded';
    default:
      return 'render failed: internal error in the drawing page';
  }
}

/** The reason a client sees for an unexpected error of a render stage (Node, Playwright, ffmpeg). */
export function stageReason(err: unknown, kind?: string): string {
  const m = err instanceof Error ? err.message : String(err);
  if (isNoSpace(err)) return NO_SPACE_REASON;
  // ffmpeg's own words (its stderr, paths) are for the log, not the client
  if (/ffmpeg/i.test(m)) return kind === 'gif' ? 'GIF encoder failed' : 'video encoder failed';
  if (/Target (page|closed)|browser has been closed|crash|disconnected/i.test(m))
    return 'browser crashed during the render';
  if (OUT_OF_MEMORY.test(m)) return 'render failed: the job needs more memory than the service has';
  return 'render failed: internal error';
}
