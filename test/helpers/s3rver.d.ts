// The part of s3rver (npm, no types of its own) the tests use.
declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class S3rver {
    constructor(options: { silent?: boolean; directory: string; configureBuckets?: { name: string }[] });
    configureBuckets(): Promise<void>;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
