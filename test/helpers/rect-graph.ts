// A scene that is cheap to send and costly to draw, for the tests of jobs that run long (stall, faults).
/** 2^levels rects built by doubling (a graph: each level uses the one below twice); `animated` moves the whole. */
export function rectGraph(levels: number, animated = false): string {
  const lines = [
    'runner "0.0.3";',
    'use std.shapes.*;',
    'use std.anim.*;',
    'scene graph(duration: Duration = 300s) -> Frame {',
  ];
  lines.push('  let l0 = rect(width: 4px, height: 4px);');
  for (let i = 1; i <= levels; i++) lines.push(`  let l${i} = compose [l${i - 1}, l${i - 1}];`);
  lines.push(
    animated ? `  compose [l${levels}.translate(x: animate { 0s => 0px, 300s => 100px })]` : `  compose [l${levels}]`,
  );
  lines.push('}');
  return lines.join('\n') + '\n';
}
