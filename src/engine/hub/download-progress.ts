/**
 * Progress of one file download on stderr: on a terminal a bar redrawn in place (at most
 * ten times a second), otherwise one plain line when the file is done (logs stay readable).
 */
import type { ProgressSink } from './types.js';

export interface FileProgress {
  /** `bytes` more have been written. */
  advance(bytes: number): void;
  done(): void;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

const BAR_WIDTH = 24;

export function startFileProgress(sink: ProgressSink, options: { label: string; total?: number; resumedAt: number }): FileProgress {
  let written = options.resumedAt;
  let lastDraw = 0;
  const started = performance.now();
  const draw = () => {
    const total = options.total;
    const fraction = total ? Math.min(1, written / total) : 0;
    const filled = Math.round(fraction * BAR_WIDTH);
    const bar = total ? `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ` : '';
    sink.write(`\r${options.label} ${bar}${megabytes(written)}${total ? ` / ${megabytes(total)}` : ''}`);
  };
  return {
    advance(bytes) {
      written += bytes;
      const now = performance.now();
      if (sink.isTTY && now - lastDraw > 100) {
        lastDraw = now;
        draw();
      }
    },
    done() {
      const seconds = (performance.now() - started) / 1000;
      if (sink.isTTY) {
        draw();
        sink.write('\n');
      } else {
        const resumed = options.resumedAt > 0 ? `, resumed at ${megabytes(options.resumedAt)}` : '';
        sink.write(`downloaded ${options.label} (${megabytes(written)} in ${seconds.toFixed(1)} s${resumed})\n`);
      }
    },
  };
}
