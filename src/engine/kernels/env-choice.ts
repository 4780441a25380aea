import { TroupeError } from '../../util/errors.js';

/**
 * The value of environment variable `name`, one of `choices`; `fallback` when it is unset or
 * empty. Anything else is a config error that lists the choices.
 */
export function choiceFromEnv<T extends string>(env: NodeJS.ProcessEnv, name: string, choices: readonly T[], fallback: T): T {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new TroupeError('config', `${name} must be one of ${choices.join(', ')}, got '${value}'; unset it for ${fallback}`);
}
