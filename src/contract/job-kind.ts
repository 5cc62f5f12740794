// The kinds of job, the one list: what a job makes, drawn by the page (frame, video, gif) or built from geometry in
// Node (mesh, vectorize). The HTTP schemas, the job rooms and the renderer port all take it from here.

export const JOB_KINDS = ['video', 'frame', 'gif', 'mesh', 'vectorize'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
