// One watcher per job followed by event streams (GET /v1/jobs/{id}/events): however many streams follow a job, a
// change is read from the job service once and the state handed to each. Reading per stream made 200 streams do 200
// reads per queue event (in Redis mode each read was a round trip or more): the API stopped answering.
//
// A burst of events costs at most one read in flight and one after it per job (later events in the burst are
// folded into the read that follows), so the reads per job are bounded by the time a read takes, not by the traffic.
import type { JobReading, JobService } from '../jobs/job-service.js';
import type { JobRecord } from '../jobs/store/port.js';

/** What a stream is told: the record as it stands and its view (undefined: gone, e.g. expired meanwhile). */
export type JobWatch = (read: JobReading | undefined) => void;

interface Watched {
  streams: Set<JobWatch>;
  /** a read is in flight */
  reading: boolean;
  /** an event came while reading: read once more after it */
  again: boolean;
}

export class JobWatchers {
  private readonly watched = new Map<string, Watched>();
  private readonly onChanged = (id: string) => this.read(id);
  private readonly onQueue = () => {
    for (const id of this.watched.keys()) this.read(id);
  };
  private readonly onEnded = (rec: JobRecord) => this.tell(rec.job_id, { rec, view: this.jobs.view(rec) });

  constructor(private readonly jobs: JobService) {}

  /** Follows a job: `watch` is called with its state now and after every change, until the returned stop is called. */
  follow(id: string, watch: JobWatch): () => void {
    let w = this.watched.get(id);
    if (!w) {
      if (!this.watched.size) this.subscribe();
      w = { streams: new Set(), reading: false, again: false };
      this.watched.set(id, w);
    }
    w.streams.add(watch);
    this.read(id);
    return () => {
      const cur = this.watched.get(id);
      if (!cur?.streams.delete(watch) || cur.streams.size) return;
      this.watched.delete(id);
      if (!this.watched.size) this.unsubscribe();
    };
  }

  private subscribe(): void {
    this.jobs.events.on('changed', this.onChanged);
    this.jobs.events.on('queue', this.onQueue);
    this.jobs.events.on('ended', this.onEnded);
  }

  private unsubscribe(): void {
    this.jobs.events.off('changed', this.onChanged);
    this.jobs.events.off('queue', this.onQueue);
    this.jobs.events.off('ended', this.onEnded);
  }

  private read(id: string): void {
    const w = this.watched.get(id);
    if (!w) return;
    if (w.reading) {
      w.again = true;
      return;
    }
    w.reading = true;
    w.again = false;
    void this.jobs
      .read(id)
      .then(
        (read) => this.tell(id, read),
        () => {}, // the store is down for a moment: the next event reads again
      )
      .finally(() => {
        w.reading = false;
        if (w.again) this.read(id);
      });
  }

  private tell(id: string, read: JobReading | undefined): void {
    const w = this.watched.get(id);
    if (!w) return;
    for (const watch of [...w.streams]) watch(read);
  }
}
