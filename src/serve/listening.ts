import { TroupeError } from '../util/errors.js';

/**
 * Starts a server, turning the operating system's refusals to listen into one line that says
 * what to change (Node would print a stack trace for EADDRINUSE and friends).
 */
export async function listening<T>(start: () => Promise<T>, host: string, port: number): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const fix: Record<string, string> = {
      EADDRINUSE: `port ${port} on ${host} is already in use; stop what listens there, or choose another --port (0 picks a free one)`,
      EACCES: `not allowed to listen on port ${port} of ${host} (ports below 1024 need root); choose a --port from 1024 to 65535`,
      EADDRNOTAVAIL: `--host ${host} is not an address of this machine; use 127.0.0.1 (local) or 0.0.0.0 (every interface)`,
      ENOTFOUND: `--host ${host} is not a known host name; use 127.0.0.1 (local) or 0.0.0.0 (every interface)`,
    };
    if (code !== undefined && code in fix) throw new TroupeError('input', fix[code]!, { cause: error });
    throw error;
  }
}
