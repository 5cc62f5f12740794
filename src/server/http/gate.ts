// A bound on how many requests hold a resource at once (concurrent uploads, GET /test renders): the request past it
// is refused at once (a 503 the caller makes) instead of waiting in line.

/** Counts holders of a bounded resource (concurrent uploads); tryEnter() fails instead of waiting. */
export class Gate {
  private held = 0;
  constructor(readonly max: number) {}
  tryEnter(): boolean {
    if (this.held >= this.max) return false;
    this.held++;
    return true;
  }
  leave(): void {
    if (this.held > 0) this.held--;
  }
  get inUse(): number {
    return this.held;
  }
}
