// npx tsx experiments/lab/plan-path-directions.ts SAMPLES.jsonl [SAMPLES.jsonl ...]
// Scratch: does a Plan-Path policy read the header's goal direction? From the samples of
// `troupe rollout` (e.g. a trained policy alone: --set model.path=RUN/checkpoints/step-N/policies/shared
// --set rollout.k=1 --tasks 60), every answer (both roles) in a state whose goal lies in a
// straight line (`GOAL L3`, `GOAL D2`: one offset only) is counted as `right` (the offset's
// letter), `mirror` (the opposite letter: R for L3) or `other`, separately for left-right and
// up-down goals. A policy that cannot tell L from R has right ~ mirror on left-right goals
// (docs/lab/plan-path-6x6.md 1, session 7: seed 5's plateau).
import { readFileSync } from 'node:fs';

interface Sample { prompt: string; response: string }

const MIRROR: Readonly<Record<string, string>> = { L: 'R', R: 'L', U: 'D', D: 'U' };

/** The single goal offset's letter of `... GOAL L3 OPEN UDL`, or undefined for two offsets or none. */
function straightGoal(prompt: string): string | undefined {
  const words = prompt.split('\n')[0]!.split(' ');
  const goal = words.indexOf('GOAL');
  if (goal < 0) return undefined;
  const open = words.indexOf('OPEN');
  const offsets = words.slice(goal + 1, open < 0 ? undefined : open).filter((w) => /^[UDLR]\d+$/.test(w));
  return offsets.length === 1 ? offsets[0]![0] : undefined;
}

for (const file of process.argv.slice(2)) {
  const samples = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Sample);
  const counts = new Map<string, number>();
  for (const s of samples) {
    const letter = straightGoal(s.prompt);
    if (letter === undefined) continue;
    const answer = s.response.trim();
    const kind = answer === letter ? 'right' : answer === MIRROR[letter] ? 'mirror' : 'other';
    const key = `${'LR'.includes(letter) ? 'left-right' : 'up-down'} goal | ${kind}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  console.log(`${file}: ${samples.length} samples`);
  for (const key of [...counts.keys()].sort()) console.log(`  ${key}: ${counts.get(key)}`);
}
