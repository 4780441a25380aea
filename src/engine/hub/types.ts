/**
 * The hub layer's vocabulary. Read this first.
 *
 * Everything in Troupe that loads a model receives a folder. This layer is the one place
 * that turns a Hugging Face hub id into such a folder, using the cache that huggingface_hub,
 * transformers and vLLM share, so a model already downloaded by any of them is found, and a
 * model Troupe downloads is found by them later:
 *
 *   <cache>/models--Org--Name/
 *     refs/<revision>              the commit a branch or tag pointed at (text, no newline)
 *     snapshots/<commit>/<file>    relative symlinks into ../../blobs/
 *     blobs/<etag>                 file contents; <etag>.incomplete while downloading
 *
 *   <cache> = HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub
 *             (HF_HOME itself defaults to $XDG_CACHE_HOME/huggingface).
 *
 *   const dir = await resolveModel('Qwen/Qwen3-0.6B');        // cache, else download
 *   const dir = await resolveModel('models/tiny');             // an existing folder, as is
 *   const all = listCachedModels();                            // what the cache holds
 */

/** `Org/Name` with an optional `@revision` (branch, tag or 40-hex commit; default `main`). */
export interface HubId {
  /** `Org/Name`. */
  readonly repo: string;
  readonly revision: string;
}

/** The environment the hub layer reads (defaults from process.env; tests pass their own). */
export interface HubEnv {
  /** The hub cache folder (see above). */
  readonly cacheDir: string;
  /** HF_ENDPOINT, default https://huggingface.co (no trailing slash). */
  readonly endpoint: string;
  /** HF_TOKEN, else the token file (HF_TOKEN_PATH, default HF_HOME/token); sent as a Bearer header to the endpoint only. */
  readonly token?: string;
  /** HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) is 1/ON/YES/TRUE: never touch the network. */
  readonly offline: boolean;
}

/** One model snapshot in the cache. */
export interface CachedModel {
  /** `Org/Name`. */
  readonly id: string;
  readonly commit: string;
  /** The snapshot folder, ready to load when `complete`. */
  readonly dir: string;
  /** Refs (branches, tags) pointing at this commit, e.g. ['main']. */
  readonly refs: readonly string[];
  /** config.json and every weight file are present. */
  readonly complete: boolean;
}

/** Where download progress goes (process.stderr by default). */
export interface ProgressSink {
  write(text: string): unknown;
  /** A terminal gets a redrawn progress bar; anything else gets one line per file. */
  readonly isTTY?: boolean;
}
