/**
 * The zod error option for a task's strict options object: an unknown key is named together
 * with the keys that are allowed, e.g. `unknown option "sise" for task plan-path; allowed:
 * size, height, ...`.
 */
export function unknownKeyError(task: string, allowed: readonly string[]) {
  return {
    error: (issue: { code?: string; keys?: readonly string[] }) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option ${(issue.keys ?? []).map((key) => JSON.stringify(key)).join(', ')} for task ${task}; allowed: ${allowed.join(', ')}`
        : undefined,
  };
}
