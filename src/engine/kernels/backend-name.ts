/**
 * The kernel backends a user can choose (config `engine.backend`, `--backend`,
 * TROUPE_BACKEND): `native` (the C++ addon), `wasm` (WebAssembly SIMD), or `auto`, which is
 * TROUPE_BACKEND when set, else native when the addon loaded, else wasm.
 */
export const BACKEND_NAMES = ['auto', 'native', 'wasm'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];
