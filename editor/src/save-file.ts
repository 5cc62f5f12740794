// Saving a file from the page: the browser's save dialog where it has one (File System Access'
// showSaveFilePicker, Chromium), else a download. The dialog must open while the click's user activation lasts,
// so an export picks its file first and streams into it afterwards.

interface SavePickerOptions {
  suggestedName?: string;
  types?: { description?: string; accept: Record<string, string[]> }[];
}
type SavePicker = (o?: SavePickerOptions) => Promise<FileSystemFileHandle>;

const picker = (): SavePicker | null =>
  typeof (window as { showSaveFilePicker?: unknown }).showSaveFilePicker === 'function'
    ? (window as unknown as { showSaveFilePicker: SavePicker }).showSaveFilePicker.bind(window)
    : null;

/** Whether this browser has a save dialog. */
export const hasSaveDialog = () => picker() !== null;

/**
 * A file the user picked, open for writing; null where the browser has no dialog. The user dismissing the dialog
 * rejects with an AbortError.
 */
export async function pickSaveFile(
  name: string,
  type: string,
  extension: string,
): Promise<FileSystemWritableFileStream | null> {
  const show = picker();
  if (!show) return null;
  const handle = await show({ suggestedName: name, types: [{ accept: { [type]: [`.${extension}`] } }] });
  return handle.createWritable();
}

/** Saves `blob` as `name` by a download link. */
export function download(blob: Blob, name: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}

/** Saves `blob` as `name`: in the save dialog where there is one, else as a download. Resolves false if dismissed. */
export async function saveBlob(blob: Blob, name: string, extension: string): Promise<boolean> {
  let w: FileSystemWritableFileStream | null;
  try {
    w = await pickSaveFile(name, blob.type.split(';')[0] || 'application/octet-stream', extension);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') return false;
    throw e;
  }
  if (!w) {
    download(blob, name);
    return true;
  }
  await w.write(blob);
  await w.close();
  return true;
}
