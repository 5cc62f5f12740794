// The shapes every in-browser export shares: where its bytes go, what it gives back, how it reports a frame done.

/** Where an export's bytes go: kept in memory (the result carries them), or streamed into a file the user picked. */
export type Destination = { kind: 'memory' } | { kind: 'file'; writable: FileSystemWritableFileStream };

export interface ExportResult {
  /** the file's bytes when kept in memory; null when they went into a file */
  bytes: Uint8Array | null;
  /** its MIME type */
  type: string;
  /** the video codec used (mediabunny's name: avc, vp9, av1, vp8), for a video */
  codec?: string;
  extension: string;
}

/** Called after each step of the work (a frame drawn and encoded; a GIF counts its two passes), with the count done. */
export type Step = (done: number) => void;
