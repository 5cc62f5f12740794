// What the routes ask of the job lifecycle, whoever runs it: the embedded JobService (one process, p-queue and
// journal) or, with REDIS_URL, the RedisJobService (records, queue and progress in Redis; workers render).
import type { JobService } from './job-service.js';

export type Jobs = Pick<
  JobService,
  | 'events'
  | 'init'
  | 'resume'
  | 'close'
  | 'shutdown'
  | 'admission'
  | 'storageRefusal'
  | 'health'
  | 'ready'
  | 'load'
  | 'estimate'
  | 'create'
  | 'cancel'
  | 'get'
  | 'view'
  | 'renderDirect'
>;
