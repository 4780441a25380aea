/**
 * A SIMULATION of a remote GPU service for `troupe serve --tinker` (--simulate-latency-ms,
 * --simulate-us-per-token): the server still computes every answer on this machine, and the
 * simulation holds answers back as a remote service would deliver them. It exists to measure
 * what overlapping sampling with training (train.max_steps_off_policy) gains when the service
 * is NOT on the trainer's own cores, on a machine that has no such service.
 *
 * The model, and its assumptions:
 * - every HTTP request waits `latencyMs` before the server handles it (one network round trip);
 * - a future's result is ready `usPerToken` microseconds per token after the request arrived:
 *   tokens = prompt + generated tokens of a sample, every datum token of forward / forward_backward;
 *   optim_step, save and load are token-free (their round trips still cost the latency); a
 *   forward-only forward_backward costs a third per token (the backward pass is about two
 *   thirds of a training step's arithmetic);
 * - with `decodeMsPerToken`, a sample also costs that much per token it generated, for its
 *   longest sequence: a GPU decodes one token per step for the whole batch, and one step of a
 *   large model reads every weight (memory-bound), so decoding is slow per token while
 *   prefill and training process many tokens per weight read;
 * - sampling requests are served side by side (a batching inference server);
 * - the training requests of one model queue behind each other on that model's lane (a model's
 *   forward_backward cannot start before its previous one ends); different models (one per
 *   role) have lanes of their own, as separate training clients do;
 * - the real computation still happens, on this machine's cores: a result is released at the
 *   later of its real completion and its simulated one, so the simulation only ever adds time.
 */
import { decodeForwardBackwardRequest } from '../../tinker/tinker-proto.js';
import type { ForwardBackwardOutput, SampleResponse } from '../../tinker/types.js';

export interface RemoteSimulationOptions {
  /** Added to every HTTP request (a round trip to the remote service). */
  readonly latencyMs: number;
  /** Service time per token processed. */
  readonly usPerToken: number;
  /** Decoding time per generated token of a sample (samples of one request decode side by side). Default 0. */
  readonly decodeMsPerToken?: number;
}

interface Admitted {
  readonly arrivedAt: number;
  /** Training lane (a model id) or undefined for sampling (served in parallel). */
  readonly lane?: string;
  readonly promptTokens: number;
  /** Share of the per-token time a token costs (1/3 for a forward without backward). */
  readonly tokenCost: number;
  /** When the simulated service finishes it (computed once, when the real result is known). */
  readyAt?: number;
}

/** Time as the simulation reads and spends it; tests pass a clock whose sleeps they can read. */
export interface SimulationClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: SimulationClock = {
  now: () => performance.now(),
  sleep: (ms) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve()),
};

/** Decoding steps a sampling result took: its longest generated sequence. */
function decodeSteps(value: unknown): number {
  const tagged = value as { proto?: string; value?: unknown };
  return tagged.proto === 'sample' ? Math.max(0, ...(tagged.value as SampleResponse).sequences.map((s) => s.tokens.length)) : 0;
}

/** Tokens the service processed to produce a result (see the model above). */
function resultTokens(value: unknown): number {
  const tagged = value as { proto?: 'sample' | 'forward_backward'; value?: unknown };
  if (tagged.proto === 'sample') return (tagged.value as SampleResponse).sequences.reduce((n, s) => n + s.tokens.length, 0);
  if (tagged.proto === 'forward_backward') return (tagged.value as ForwardBackwardOutput).loss_fn_outputs.reduce((n, o) => n + (o.logprobs?.data.length ?? 0), 0);
  return 0;
}

export class SimulatedRemote {
  readonly options: RemoteSimulationOptions;
  private readonly admitted = new Map<string, Admitted>();
  private readonly laneFreeAt = new Map<string, number>();

  private readonly clock: SimulationClock;

  constructor(options: RemoteSimulationOptions, clock: SimulationClock = realClock) {
    this.options = options;
    this.clock = clock;
  }

  /** The network round trip every request pays. */
  roundTrip(): Promise<void> {
    return this.clock.sleep(this.options.latencyMs);
  }

  /** A submit route answered `requestId`: note when it arrived and which lane it runs in. */
  admit(requestId: string, request: { lane?: string; promptTokens?: number; forwardOnly?: boolean }): void {
    this.admitted.set(requestId, { arrivedAt: this.clock.now(), lane: request.lane, promptTokens: request.promptTokens ?? 0, tokenCost: request.forwardOnly ? 1 / 3 : 1 });
    // A result nobody fetches must not be remembered forever.
    setTimeout(() => this.admitted.delete(requestId), 600_000).unref();
  }

  /** Resolves once the simulated service has finished `requestId`, whose real result is `value`. */
  async hold(requestId: string, value: unknown): Promise<void> {
    const entry = this.admitted.get(requestId);
    if (entry === undefined) return;
    if (entry.readyAt === undefined) {
      const serviceMs = ((entry.promptTokens + resultTokens(value)) * this.options.usPerToken * entry.tokenCost) / 1000 + decodeSteps(value) * (this.options.decodeMsPerToken ?? 0);
      const start = entry.lane === undefined ? entry.arrivedAt : Math.max(entry.arrivedAt, this.laneFreeAt.get(entry.lane) ?? 0);
      entry.readyAt = start + serviceMs;
      if (entry.lane !== undefined) this.laneFreeAt.set(entry.lane, entry.readyAt);
    }
    await this.clock.sleep(entry.readyAt - this.clock.now());
  }
}

const TRAINING_ROUTES = new Set(['/forward_backward', '/optim_step', '/save_weights', '/save_weights_for_sampler', '/load_weights']);

/** Where a submitted request runs: a training model's lane, or (sampling) with its prompt tokens. */
export function simulatedLane(route: string, body: Record<string, unknown>, raw: Uint8Array): { lane?: string; promptTokens?: number; forwardOnly?: boolean } {
  if (route === '/forward_backward') {
    const request = decodeForwardBackwardRequest(new Uint8Array(raw.buffer, raw.byteOffset, raw.length));
    return { lane: request.model_id, forwardOnly: request.forward_only };
  }
  if (TRAINING_ROUTES.has(route)) return { lane: String(body.model_id) };
  if (route !== '/asample') return {};
  const chunks = (body.prompt as { chunks?: Array<{ tokens?: unknown[] }> } | undefined)?.chunks ?? [];
  return { promptTokens: chunks.reduce((n, c) => n + (Array.isArray(c.tokens) ? c.tokens.length : 0), 0) };
}
