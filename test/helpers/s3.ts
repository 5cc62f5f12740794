// An S3-compatible server of a test's own: npm's s3rver (3.7.1; Debian packages none) on a loopback port, its objects
// in a temporary directory. It takes the AWS SDK's signed requests (SigV4 with the key pair S3RVER/S3RVER), multipart
// uploads included. stop() and start() close and reopen the same port over the same directory: the bucket going away
// mid-job and coming back. Requests pass through hooks first, so a test can see what the service asked (an
// AbortMultipartUpload, which s3rver lacks) or make the server fail one request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export type S3Hook = (req: IncomingMessage, res: ServerResponse) => boolean;

export class TestS3 {
  /** method and URL of every request, in order */
  readonly requests: string[] = [];
  /** consulted in order before s3rver; one that returns true has answered the request itself */
  hooks: S3Hook[] = [];
  private server: Server | null = null;
  private readonly handle: (req: IncomingMessage, res: ServerResponse) => void;

  private constructor(
    readonly dir: string,
    readonly bucket: string,
    private readonly s3rver: S3rver,
    public port = 0,
  ) {
    const app = s3rver.callback();
    this.handle = (req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      for (const h of this.hooks) if (h(req, res)) return;
      app(req, res);
    };
  }

  static async start(bucket = 'cmrender'): Promise<TestS3> {
    const dir = await mkdtemp(join(tmpdir(), 'cmr-s3-'));
    const s3rver = new S3rver({ silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
    await s3rver.configureBuckets();
    const s = new TestS3(dir, bucket, s3rver);
    await s.start();
    return s;
  }

  /** Listens (again): port 0 the first time, read back; the same port after a stop(). */
  async start(): Promise<void> {
    const server = createServer(this.handle);
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Closes the port and drops every open connection: requests fail as against a bucket that went away. */
  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = null;
    const closed = once(s, 'close');
    s.close();
    s.closeAllConnections();
    await closed;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The environment a service (in process or child) needs to use this bucket: the SDK's own variables and ours. */
  env(prefix = 'run'): Record<string, string> {
    return {
      STORAGE_URL: `s3://${this.bucket}/${prefix}`,
      S3_FORCE_PATH_STYLE: '1',
      AWS_ENDPOINT_URL_S3: this.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      // s3rver stores a streamed (aws-chunked) body with its framing: checksums only where the API requires them
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    };
  }

  /** Sets env() in this process (for an app built in process) and returns the config entries it stands for. */
  useInProcess(prefix = 'run'): { storageUrl: string; s3ForcePathStyle: boolean } {
    const e = this.env(prefix);
    for (const [k, v] of Object.entries(e)) if (k.startsWith('AWS_')) process.env[k] = v;
    return { storageUrl: e.STORAGE_URL!, s3ForcePathStyle: true };
  }

  async close(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
