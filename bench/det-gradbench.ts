// det's derivative/primal ratio through the GradBench protocol (issue 18, item 6): drives the
// `tsad-gradbench` tool (src/cli/gradbench.ts) as GradBench's evaluator does — define, then evaluate
// `primal` and `gradient` on the same input, each repeated until min_runs runs and min_seconds — and reports the ratio
// of the minima of the tool's own per-run timings, beside the ratios of GradBench's C++ `manual` tool
// measured on this kind of machine (CPP below, from the shared reference figures, ANCHORS.md).
// Usage (after `npm run build`): node dist/bench/det-gradbench.js [sizes…] (default 8 9 10). Not
// compiler input.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** GradBench's C++ `manual` tool, derivative/primal (ANCHORS.md) */
const CPP: Record<number, number> = { 5: 4.92, 6: 5.61, 7: 6.85, 8: 7.58, 9: 8.69, 10: 9.89, 11: 10.36 };

function matrix(ell: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: ell * ell }, () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1);
}

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const requests: object[] = [{ id: 0, kind: 'start' }, { id: 1, kind: 'define', module: 'det' }];
let id = 2;
for (const ell of sizes.length ? sizes : [8, 9, 10]) {
  // (at least a second of runs at the small sizes: the first runs of a size still warm up the JIT)
  const runs = ell >= 11 ? 2 : ell >= 10 ? 3 : 5;
  const input = { ell, A: matrix(ell, 12345 + ell), min_runs: runs, min_seconds: ell >= 10 ? 0 : 1 };
  // (interleaved: primal, gradient, primal, gradient, so that both see the same load)
  for (let r = 0; r < 2; r++) for (const fn of ['primal', 'gradient']) requests.push({ id: id++, kind: 'evaluate', module: 'det', function: fn, input });
}
const tool = join(import.meta.dirname, '..', 'src', 'cli', 'gradbench.js');
const out = spawnSync(process.execPath, [tool], { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n', encoding: 'utf8', maxBuffer: 1 << 26 });
if (out.status !== 0) throw new Error(`tsad-gradbench failed: ${out.stderr}`);
const answers = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; success?: boolean; error?: string; timings?: { name: string; nanoseconds: number }[] });
const best = new Map<string, number>();
for (const a of answers) {
  const req = requests[a.id] as { kind: string; function?: string; input?: { ell: number } };
  if (req.kind !== 'evaluate') continue;
  if (!a.success) throw new Error(`det ${req.function}: ${a.error}`);
  const key = `${req.input!.ell} ${req.function}`;
  const t = Math.min(...a.timings!.filter((x) => x.name === 'evaluate').map((x) => x.nanoseconds));
  best.set(key, Math.min(best.get(key) ?? Infinity, t));
}
console.log('| n | primal | gradient | ratio | C++ manual (ANCHORS.md) |\n|---|---|---|---|---|');
for (const ell of [...new Set([...best.keys()].map((k) => Number(k.split(' ')[0])))]) {
  const p = best.get(`${ell} primal`)! / 1e6, g = best.get(`${ell} gradient`)! / 1e6;
  console.log(`| ${ell} | ${p.toPrecision(3)} ms | ${g.toPrecision(3)} ms | ${(g / p).toFixed(2)}× | ${CPP[ell]?.toFixed(2) ?? '–'}× |`);
}
