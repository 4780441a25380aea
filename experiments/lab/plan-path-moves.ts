// npx tsx experiments/lab/plan-path-moves.ts SAMPLES.jsonl [SAMPLES.jsonl ...]
// Scratch: what a Plan-Path team's moves are, from the samples of `troupe rollout` (e.g. a
// trained policy alone: --set model.path=RUN/checkpoints/step-N/policies/shared
// --set rollout.k=1) or of a run's rollouts/step-N.jsonl. Per role, each move's kind (good:
// one step closer by BFS; away; wall: into a wall or off the grid; broken: unparseable) in
// states where a goal direction is open against states that need a detour; then, for the plan
// role, whether it copied the tool's proposal when the tool's simulated move was good or bad.
// A task counts as solved when a plan move earned the goal reward.
import { readFileSync } from 'node:fs';

interface Sample { task_id: string; role: string; prompt: string; response: string; reward: { local: number } }

function moveKind(local: number): string {
  if (local > 0) return 'good';
  if (local <= -0.45) return 'broken'; // tasks.unparseable_reward -0.5
  return Math.abs(local + 0.1) < 1e-9 ? 'wall' : 'away';
}

/** `GOAL D1 R2 OPEN UDL`: is one of the goal's directions among the open moves? */
function goalDirectionOpen(prompt: string): boolean {
  const words = prompt.split('\n')[0]!.split(' ');
  const goal = words.indexOf('GOAL');
  const open = words.indexOf('OPEN');
  const moves = open >= 0 ? (words[open + 1] ?? '') : '';
  return words.slice(goal + 1, open).some((offset) => moves.includes(offset[0]!));
}

for (const file of process.argv.slice(2)) {
  const samples = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Sample);
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const s of samples) {
    add(`${s.role} | ${goalDirectionOpen(s.prompt) ? 'goal direction open' : 'detour needed'} | ${moveKind(s.reward.local)}`);
    const lines = s.prompt.split('\n');
    const proposal = lines.find((l) => l.startsWith('TOOL '))?.split(' ')[1];
    const sim = lines.find((l) => l.startsWith('SIM '));
    if (s.role === 'plan' && proposal !== undefined && sim !== undefined) {
      add(`plan | tool's simulated move ${sim.includes('R=-') ? 'bad' : 'good'} | ${s.response.trim() === proposal ? 'copied it' : 'answered otherwise'}`);
    }
  }
  const solved = new Set(samples.filter((s) => s.role === 'plan' && s.reward.local > 0.5).map((s) => s.task_id)).size;
  console.log(`${file}: ${samples.length} samples, ${new Set(samples.map((s) => s.task_id)).size} tasks, ${solved} reached the goal`);
  for (const [key, n] of [...counts].sort()) console.log(`  ${key}: ${n}`);
}
