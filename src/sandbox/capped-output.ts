/**
 * Collects a stream's bytes up to a cap, remembering whether more arrived, plus a short tail
 * (the last bytes seen, kept even past the cap) for classifying the exit from stderr.
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private tailBuf: Buffer = Buffer.alloc(0);
  /** More than `cap` bytes arrived. */
  exceeded = false;

  constructor(
    private readonly cap: number,
    private readonly tailBytes = 4096,
  ) {}

  /** Adds a chunk; returns true when this chunk pushed the stream over its cap. */
  push(chunk: Buffer): boolean {
    const wasExceeded = this.exceeded;
    const room = this.cap - this.kept;
    if (chunk.length > room) this.exceeded = true;
    const take = Math.max(0, Math.min(room, chunk.length));
    if (take > 0) {
      this.chunks.push(take === chunk.length ? chunk : chunk.subarray(0, take));
      this.kept += take;
    }
    const joined = Buffer.concat([this.tailBuf, chunk]);
    this.tailBuf = joined.subarray(Math.max(0, joined.length - this.tailBytes));
    return this.exceeded && !wasExceeded;
  }

  /** The kept bytes as UTF-8 (a character cut at the cap becomes U+FFFD). */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  tail(): string {
    return this.tailBuf.toString('utf8');
  }
}
