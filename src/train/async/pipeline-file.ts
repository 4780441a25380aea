/**
 * `checkpoints/step-N/pipeline.json` of an asynchronous run: what was in flight when step N's
 * checkpoint was taken. The rollouts of steps N+1..N+s were sampled with weights older than the
 * checkpoint's, which no longer exist anywhere, so they are saved as played (samples with their
 * token ids, behaviour logprobs and versions, and episode stats) and the resumed run trains on
 * exactly them: no group is trained twice or lost, and nothing is sampled again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import type { PipelineState } from './step-pipeline.js';

export const PIPELINE_FILE = 'pipeline.json';

/** The file's text (numbers round-trip exactly through JSON, so resumed updates see the same logprobs). */
export function pipelineFileText(state: PipelineState): string {
  return `${JSON.stringify({ format: 1, versions: state.versions, pending: state.pending })}\n`;
}

/**
 * A checkpoint's pipeline file, read and checked; undefined when it has none (an on-policy
 * checkpoint). One that does not parse (cut short, overwritten) throws: resuming treats that
 * checkpoint as damaged and falls back to an older one.
 */
export function readPipelineFile(checkpointDir: string): PipelineState | undefined {
  const path = join(checkpointDir, PIPELINE_FILE);
  return existsSync(path) ? parsePipelineFile(path) : undefined;
}

/**
 * What a resumed run restores: the checkpoint's pipeline state. An async run resumed from a
 * checkpoint without one (written on-policy) cannot know what was in flight.
 */
export function pipelineToResume(checkpointDir: string, state: PipelineState | undefined, maxOffPolicy: number): PipelineState | undefined {
  if (state === undefined && maxOffPolicy > 0) {
    throw new TroupeError('checkpoint', `${checkpointDir} has no ${PIPELINE_FILE}, so the rollouts in flight when it was saved are unknown; resume with the train.max_steps_off_policy the run started with`);
  }
  return state;
}

function parsePipelineFile(path: string): PipelineState {
  let parsed: { format?: number } & PipelineState;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as { format?: number } & PipelineState;
  } catch (error) {
    throw new TroupeError('checkpoint', `${path} does not parse (${error instanceof Error ? error.message : String(error)}); the checkpoint is damaged`);
  }
  if (parsed?.format !== 1 || typeof parsed.versions !== 'object' || parsed.versions === null || !Array.isArray(parsed.pending)) {
    throw new TroupeError('checkpoint', `${path} is not a pipeline file Troupe wrote (format 1); the checkpoint is damaged`);
  }
  return { versions: parsed.versions, pending: parsed.pending };
}
