// A scene that is cheap to draw and costly to evaluate: every frame a lambda recursion of 2^levels calls spends
// most of the language's step budget (EVL006, 200,000 steps) on a number nobody draws, then shows one small rect.
// At 13 levels a frame takes 188,420 steps (`/v1/check`: ok); at 14 it is EVL006. `moving`: the rect moves, so every
// frame is drawn; else the scene still reads time (every frame is evaluated) but shows the same picture throughout
// (drawn once), so evaluating is all the work its frames ask of Node.
export function stepHeavy(levels = 13, moving = true): string {
  const x = moving ? 'animate { 0s => 0px, 300s => 100px }' : '0px';
  return [
    'runner "0.0.3";',
    'use std.shapes.*;',
    'use std.anim.*;',
    'let f = |g: Fn, n: Number| { if n > 0 { g(g, n - 1) + g(g, n - 1) } else { 1 } };',
    'scene heavy(duration: Duration = 300s) -> Frame {',
    `  let k = f(f, ${levels});`,
    '  let clock = animate { 0s => 0, 300s => 1 };',
    `  compose [rect(width: 8px, height: 8px).translate(x: ${x})]`,
    '}',
    '',
  ].join('\n');
}
