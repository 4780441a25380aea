/**
 * The read routes of the SDK's RestClient, in the SDK's shapes (types TrainingRun, Checkpoint,
 * CheckpointsListResponse, TrainingRunsResponse, ListSessionsResponse, Cursor):
 *
 *   GET training_runs/<id>               get_training_run (the SDK calls it on every resume)
 *   GET training_runs?limit&offset       list_training_runs
 *   GET training_runs/<id>/checkpoints   list_checkpoints
 *   GET checkpoints?limit&offset         list_user_checkpoints (newest first)
 *   GET sessions?limit&offset            list_sessions
 *
 * A training run is a training model of this server, or (after a restart with --state-dir)
 * the model id its saved checkpoints carry.
 */
import { parseTinkerPath } from '../../tinker/tinker-path.js';
import { z } from 'zod';
import { optional, parseTinker } from './request-fields.js';

/** One checkpoint (training weights or sampler weights) as the service knows it. */
export interface CheckpointRecord {
  readonly path: string;
  readonly time: Date;
  readonly expiresAt?: Date;
  readonly sizeBytes?: number;
  /** Published with POST training_runs/<id>/checkpoints/<checkpoint_id>/publish. */
  readonly public?: boolean;
}

/** One training run as the service knows it. */
export interface RunRecord {
  readonly id: string;
  readonly baseModel: string;
  readonly loraRank: number;
  readonly lastRequestTime: Date;
}

/** The owner every run reports (the server accepts any API key, so there is one user). */
export const LOCAL_OWNER = 'local';

export function checkpointJson(c: CheckpointRecord): Record<string, unknown> {
  const parsed = parseTinkerPath(c.path);
  return {
    checkpoint_id: `${parsed.kind}/${parsed.name}`,
    checkpoint_type: parsed.kind === 'weights' ? 'training' : 'sampler',
    time: c.time.toISOString(),
    tinker_path: c.path,
    size_bytes: c.sizeBytes ?? null,
    public: c.public === true,
    expires_at: c.expiresAt?.toISOString() ?? null,
  };
}

/** The newest checkpoint of a kind, or null. */
function newest(checkpoints: readonly CheckpointRecord[], kind: 'weights' | 'sampler_weights'): Record<string, unknown> | null {
  const ofKind = checkpoints.filter((c) => parseTinkerPath(c.path).kind === kind);
  const last = ofKind.reduce<CheckpointRecord | undefined>((a, c) => (a === undefined || c.time >= a.time ? c : a), undefined);
  return last === undefined ? null : checkpointJson(last);
}

export function trainingRunJson(run: RunRecord, checkpoints: readonly CheckpointRecord[]): Record<string, unknown> {
  return {
    training_run_id: run.id,
    base_model: run.baseModel,
    model_owner: LOCAL_OWNER,
    is_lora: true,
    corrupted: false,
    lora_rank: run.loraRank,
    last_request_time: run.lastRequestTime.toISOString(),
    last_checkpoint: newest(checkpoints, 'weights'),
    last_sampler_checkpoint: newest(checkpoints, 'sampler_weights'),
    user_metadata: null,
  };
}

/** A page parameter of a query string: decimal digits, at most `max`. */
function pageParameter(max: number) {
  const refusal = (issue: { input?: unknown }) => `must be an integer in 0..${max}, got ${JSON.stringify(String(issue.input).slice(0, 40))}`;
  return optional(z.string().regex(/^\d+$/, { error: refusal }).refine((text) => Number(text) <= max, { error: refusal }).transform(Number));
}

const pageQuery = z.object({ limit: pageParameter(10_000), offset: pageParameter(Number.MAX_SAFE_INTEGER) });

/** `limit` and `offset` of a list route's query (defaults as the SDK's). */
export function pageOf(query: URLSearchParams, defaultLimit: number): { limit: number; offset: number } {
  const page = parseTinker(pageQuery, { limit: query.get('limit'), offset: query.get('offset') });
  return { limit: page.limit ?? defaultLimit, offset: page.offset ?? 0 };
}

/** One page of `items` and the SDK's Cursor. */
export function paged<T>(items: readonly T[], page: { limit: number; offset: number }): { items: T[]; cursor: { offset: number; limit: number; total_count: number } } {
  return { items: items.slice(page.offset, page.offset + page.limit), cursor: { offset: page.offset, limit: page.limit, total_count: items.length } };
}
