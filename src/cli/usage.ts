// Every subcommand's usage line, in one light module: `cmrender --help` and `cmrender SUB --help` print them without
// loading the renderer (Chromium's driver, three.js), so help answers at once.
/** The scene's arguments, as render, eval, check and schema take them (arg-flags.ts). */
const ARGS = '[--arg NAME=VALUE]... [--arg-json NAME=JSON]... [--args FILE.json]';
export const CHECK_USAGE = `cmrender check FILE|- [--json] [--strict] ${ARGS}`;
export const EVAL_USAGE = `cmrender eval FILE --at SECONDS [--json] ${ARGS}`;
export const SCHEMA_USAGE = `cmrender schema FILE|- ${ARGS}`;
export const RENDER_USAGE = `cmrender render FILE -o OUT.png|.jpg|.webp|.mp4|.webm|.mov|.gif [--at S] [--duration S] [--fps N] [--width W] [--height H] [--codec C] [--quality Q] [--asset /img/x.jpg=./x.jpg]... ${ARGS} [--rows ROWS.csv|.jsonl -o 'out/{name}.mp4']`;
export const MESH_USAGE = 'cmrender mesh DRAWING.svg -o OUT.glb [--depth N] [--size N] [--round N]';
export const VECTORIZE_USAGE =
  'cmrender vectorize SKETCH.png|.jpg -o OUT.svg [--stroke-width N] [--threshold 0..1] [--simplify N] [--bridge N] [--stitch N] [--max-dim N]';
export const EXPLAIN_USAGE = 'cmrender explain CODE [--json]';
export const FMT_USAGE = 'cmrender fmt FILE|- [--check|--write]';
export const VERSION_USAGE = 'cmrender version [--json]';
export const MCP_USAGE = 'cmrender mcp [--url URL]';
export const OPEN_USAGE = 'cmrender open FILE [--port N] [--browser] [--json]';

/** Usage of each subcommand, by name. */
export const SUBCOMMAND_USAGE: Readonly<Record<string, string>> = {
  check: CHECK_USAGE,
  eval: EVAL_USAGE,
  schema: SCHEMA_USAGE,
  render: RENDER_USAGE,
  mesh: MESH_USAGE,
  vectorize: VECTORIZE_USAGE,
  explain: EXPLAIN_USAGE,
  fmt: FMT_USAGE,
  version: VERSION_USAGE,
  mcp: MCP_USAGE,
  open: OPEN_USAGE,
};

export const USAGE = `usage: ${Object.values(SUBCOMMAND_USAGE).join('\n       ')}
       cmrender --help | SUBCOMMAND --help
       cmrender --version`;

/** Whether the arguments ask for help (`--help` or `-h` anywhere before a `--`). */
export function asksHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}
