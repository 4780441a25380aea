/**
 * The GET routes of the SDK's RestClient over a TinkerService: training runs, their
 * checkpoints, every checkpoint, sessions (shapes in training-runs.ts).
 *
 *   trainingRunRoute(service, 'session-1:train:0')               // GET training_runs/<id>
 *   trainingRunRoute(service, 'session-1:train:0/checkpoints')   // GET training_runs/<id>/checkpoints
 */
import { parseTinkerPath } from '../../tinker/tinker-path.js';
import { pathPart } from './request-fields.js';
import { TinkerApiError } from './tinker-api-error.js';
import type { TinkerService } from './tinker-service.js';
import { checkpointJson, paged, pageOf, trainingRunJson, type CheckpointRecord, type RunRecord } from './training-runs.js';

/** A run of this server, or one whose checkpoints a previous server left in --state-dir. */
function findRun(service: TinkerService, id: string): RunRecord | undefined {
  const live = service.runs.get(id);
  if (live) return live;
  const saved = service.store.saved.list().filter((r) => parseTinkerPath(r.path).modelId === id);
  const last = saved[saved.length - 1];
  return last === undefined ? undefined : { id, baseModel: last.baseModel, loraRank: last.loraRank, lastRequestTime: last.time };
}

function checkpointsOf(service: TinkerService, id: string): CheckpointRecord[] {
  return service.store.list().filter((c) => parseTinkerPath(c.path).modelId === id);
}

export function knownRun(service: TinkerService, id: string): RunRecord {
  const run = findRun(service, id);
  if (!run) throw new TinkerApiError(404, `unknown training run ${JSON.stringify(id).slice(0, 100)}; GET training_runs lists them`);
  return run;
}

/** GET training_runs/<id> and GET training_runs/<id>/checkpoints. */
export function trainingRunRoute(service: TinkerService, rest: string): unknown {
  const listing = rest.endsWith('/checkpoints');
  const id = pathPart(listing ? rest.slice(0, -'/checkpoints'.length) : rest);
  if (id.includes('/')) throw new TinkerApiError(404, `no route GET training_runs/${rest.slice(0, 100)}; GET serves training_runs/<id> and training_runs/<id>/checkpoints`);
  const run = knownRun(service, id);
  const checkpoints = checkpointsOf(service, id);
  return listing ? { checkpoints: checkpoints.map(checkpointJson), cursor: null } : trainingRunJson(run, checkpoints);
}

/** GET training_runs?limit&offset (newest first). */
export function listTrainingRuns(service: TinkerService, query: URLSearchParams): unknown {
  const ids = new Set([...service.runs.keys(), ...service.store.list().map((c) => parseTinkerPath(c.path).modelId)]);
  const runs = [...ids].map((id) => knownRun(service, id)).sort((a, b) => b.lastRequestTime.getTime() - a.lastRequestTime.getTime());
  const { items, cursor } = paged(runs, pageOf(query, 20));
  return { training_runs: items.map((r) => trainingRunJson(r, checkpointsOf(service, r.id))), cursor };
}

/** GET checkpoints?limit&offset: every checkpoint, newest first. */
export function listUserCheckpoints(service: TinkerService, query: URLSearchParams): unknown {
  const { items, cursor } = paged(service.store.list().reverse(), pageOf(query, 100));
  return { checkpoints: items.map(checkpointJson), cursor };
}

/** GET sessions?limit&offset. */
export function listSessions(service: TinkerService, query: URLSearchParams): unknown {
  const { items } = paged([...service.sessions.keys()], pageOf(query, 20));
  return { sessions: items };
}
