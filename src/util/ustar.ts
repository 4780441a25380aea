/**
 * A minimal writer of uncompressed POSIX ustar archives (what Python's `tarfile.open(path, "r")`
 * and GNU tar read): regular files only, flat names up to 100 bytes, mode 0644. The archive is
 * yielded block by block (a header, the file's bytes, zero padding to 512, and two zero blocks
 * at the end), so a server can write it to a response as it goes.
 *
 *   for (const chunk of ustarChunks([{ name: 'a.json', bytes, mtime: new Date() }])) res.write(chunk);
 */
import { TroupeError } from './errors.js';

export interface UstarFile {
  /** A plain file name (no folders, no `..`), at most 100 bytes of UTF-8. */
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly mtime: Date;
}

const BLOCK = 512;

/** `value` as zero-padded octal digits filling `width - 1` bytes plus a NUL. */
function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** The 512-byte ustar header of one regular file. */
export function ustarHeader(file: UstarFile): Uint8Array {
  const name = new TextEncoder().encode(file.name);
  if (name.length === 0 || name.length > 100 || file.name.includes('/') || file.name === '..' || file.name === '.') {
    throw new TroupeError('input', `tar entry name ${JSON.stringify(file.name)} must be a plain file name of 1..100 bytes; rename the file`);
  }
  if (file.bytes.length >= 8 ** 11) throw new TroupeError('input', `tar entry ${file.name} is ${file.bytes.length} bytes; ustar holds at most 8 GiB per file`);
  const header = new Uint8Array(BLOCK);
  const put = (offset: number, text: string) => header.set(new TextEncoder().encode(text), offset);
  header.set(name, 0);
  put(100, octal(0o644, 8)); // mode
  put(108, octal(0, 8)); // uid
  put(116, octal(0, 8)); // gid
  put(124, octal(file.bytes.length, 12));
  put(136, octal(Math.max(0, Math.floor(file.mtime.getTime() / 1000)), 12));
  put(148, '        '); // the checksum counts its own field as spaces
  put(156, '0'); // regular file
  put(257, 'ustar\u000000');
  let sum = 0;
  for (const byte of header) sum += byte;
  put(148, `${sum.toString(8).padStart(6, '0')}\0 `);
  return header;
}

/** Every block of an archive of `files`, in order. */
export function* ustarChunks(files: readonly UstarFile[]): Generator<Uint8Array> {
  for (const file of files) {
    yield ustarHeader(file);
    if (file.bytes.length > 0) yield file.bytes;
    const pad = (BLOCK - (file.bytes.length % BLOCK)) % BLOCK;
    if (pad > 0) yield new Uint8Array(pad);
  }
  yield new Uint8Array(2 * BLOCK);
}
