// The public view of a job record: the contract's Job shapes (pending, ready, error) plus the added fields. The
// record holds everything durable; what only the running service knows (queue position, progress) comes in `live`.
import { withDocsLink } from './diagnostic-links.js';
import type { JobView } from '../../contract/job-view.js';
import type { JobRecord } from './store/port.js';
import type { OutputMime } from '../../contract/mime.js';

export interface LiveJobState {
  /** 0 = rendering now, 1 = next, ...; undefined when the job is not queued */
  queuePosition?: number;
  /** frames done over frames planned, while it renders */
  progress?: number;
}

export function jobView(rec: JobRecord, live: LiveJobState): JobView {
  const base = {
    job_id: rec.job_id,
    kind: rec.kind,
    ...(rec.scene !== undefined ? { scene: rec.scene } : {}),
    ...(rec.args !== undefined ? { args: rec.args } : {}),
  };
  if (rec.status === 'pending') {
    const v: JobView = { ...base, status: 'pending', created_at: rec.created_at };
    if (live.queuePosition !== undefined) v.queue_position = live.queuePosition;
    v.progress = live.progress ?? 0;
    return v;
  }
  if (rec.status === 'ready' && rec.output) {
    return {
      ...base,
      status: 'ready',
      created_at: rec.created_at,
      completed_at: rec.completed_at,
      url: `/v1/outputs/${rec.output.filename}`,
      mime: rec.output.mime as OutputMime,
      width: rec.output.width,
      height: rec.output.height,
      ...(rec.cached ? { cached: true } : {}),
      ...(rec.warnings && rec.warnings.length > 0 ? { warnings: rec.warnings.map(withDocsLink) } : {}),
    };
  }
  const v: JobView = {
    ...base,
    status: 'error',
    created_at: rec.created_at,
    completed_at: rec.completed_at,
    message: rec.message ?? 'render failed',
    code: rec.code ?? null,
  };
  if (rec.diagnostics) v.diagnostics = rec.diagnostics.map(withDocsLink);
  return v;
}
