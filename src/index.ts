/**
 * Troupe's public API: everything a program needs to define its own tasks and train, evaluate,
 * play and serve teams of agents. Anything not exported here is internal and may change.
 *
 * ```ts
 * import { defineTask, train, evaluate } from 'troupe';
 * const guess = defineTask({ name: 'guess', maxTurns: 1, source, team, scripted });
 * const run = await train({ config: 'run.yaml', tasks: [guess], runDir: 'runs/guess' });
 * const score = await evaluate({ run: run.runDir, tasks: [guess] });
 * ```
 *
 * docs/api.md is the reference with a complete example; docs/new-task.md writes a task.
 */

// Defining a task: the vocabulary (src/envs/types.ts) and defineTask.
export type {
  Env,
  ParseResult,
  ReferenceResponder,
  Role,
  ScriptedResponder,
  Split,
  StepOutcome,
  TaskDefinition,
  TaskSource,
  Team,
  TeamOptions,
  TurnContext,
  TurnOrder,
} from './envs/types.js';
export { defineTask, type TaskSpec, type TeamSpec } from './envs/define-task.js';
export type { AnyTaskDefinition } from './envs/task-catalog.js';
export type { OptionValue } from './envs/options-from-defaults.js';
export { Rng } from './util/rng.js';
export { z } from 'zod';

// Configs: the type of a config object (keys as in YAML) and an identity helper that checks it.
export { defineConfig, type ConfigOverrides, type DeepPartial, type TroupeConfig } from './config/troupe-config.js';
export { readConfig, type ConfigInput } from './config/read-config.js';
export type { ResolvedConfig } from './config/resolve-config.js';

// The verbs, each taking one options object.
export { train, type CheckpointEvent, type TrainOptions, type TrainResult } from './api/train.js';
export { evaluate, type EvaluateOptions, type EvaluateResult } from './api/evaluate.js';
export { rollout, type RolloutOptions, type RolloutResult } from './api/rollout.js';
export { serve, type ListenOptions, type ServeOptions, type RunningServer } from './api/serve.js';
export { createHandler, type TroupeHandler } from './api/create-handler.js';
export type { HandlerOptions, OpenAIHandlerOptions, RemoteSimulationOptions, TinkerHandlerOptions, TinkerLimits } from './api/handler-options.js';
export { compare, type CompareOptions, type CompareResult, type CompareRow, type SeedResult } from './api/compare.js';

// What the options take: kernels, a progress stream, the records of metrics.jsonl.
export type { BackendName } from './engine/kernels/backend-name.js';
export type { HubEnv } from './engine/hub/types.js';
export type { ProgressStream } from './train/progress/progress-display.js';
export type { EvalRecord, MetricsRecord, TrainRecord, WarmStartRecord } from './train/metrics/types.js';

// What the verbs return and throw.
export type { EpisodeStats, Sample } from './rollout/types.js';
export type { RolloutSummary } from './rollout/summarize-rollout.js';
export { TroupeError, type ErrorCategory } from './util/errors.js';
