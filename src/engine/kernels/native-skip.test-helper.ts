// The skip reason of a test that needs the native addon, where this host has none (TROUPE_NO_NATIVE=1,
// a CPU or OS the addon does not build for, no C++ compiler). One wording for every such test, so
// the summary line of `npm test` counts them under one reason.
import { loadNativeBinding } from './native-binding.js';

const load = loadNativeBinding();

/** `false` where the addon loaded, else `no native addon: <why>` (node:test's `skip` option). */
export const nativeSkip: false | string = load.binding ? false : `no native addon: ${load.reason}`;
