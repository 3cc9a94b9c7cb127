// ht's Jacobian by the dense and the sparse vector mode (issue 18), in-process: for each hand file, the
// primal (the eval's objective), then the Jacobian both ways, interleaved in rounds; min of the rounds,
// wall-clock and this process's CPU time (the machine may be shared). Also checks that the two
// Jacobians agree. Not compiler input.
//   node dist/bench/ht-sparse-vector.js [simple|complicated] [big|small] [hand stems…]
// The data: evals/data/ht, or TSAD_EVALS_DIR (e.g. the fuller GradBench copy with hands 1–12).
import { cpuUsage } from 'node:process';
import { jacobianFlat } from '../evals/ht/derivatives.js';
import { loadHtInput, prepare, runObjective, type HtModelSize, type HtVariant } from '../evals/ht/io.js';

interface Times {
  wall: number;
  cpu: number;
}

function time(f: () => unknown, minMs = 1000, minRuns = 10): Times {
  let wall = Infinity;
  let cpu = Infinity;
  const start = performance.now();
  for (let run = 0; run < minRuns || performance.now() - start < minMs; run++) {
    const c0 = cpuUsage();
    const t0 = performance.now();
    f();
    wall = Math.min(wall, performance.now() - t0);
    const c = cpuUsage(c0);
    cpu = Math.min(cpu, (c.user + c.system) / 1000);
  }
  return { wall, cpu };
}

function main(): void {
  const [variant = 'complicated', model = 'big', ...stems] = process.argv.slice(2);
  const hands = stems.length ? stems : ['hand1_t26_c100'];
  console.log(`ht ${variant} ${model}: ms (wall / cpu), min of rounds`);
  console.log('hand | primal | dense J | sparse J | dense d/p | sparse d/p | max |J_s - J_d|');
  for (const stem of hands) {
    const a = prepare(loadHtInput(variant as HtVariant, model as HtModelSize, stem));
    const dense = jacobianFlat(a, false).jac;
    const sparse = jacobianFlat(a, true).jac;
    let diff = 0;
    for (let i = 0; i < dense.length; i++) diff = Math.max(diff, Math.abs(dense[i] - sparse[i]));
    const p = time(() => runObjective(a));
    const d = time(() => jacobianFlat(a, false));
    const s = time(() => jacobianFlat(a, true));
    const f = (t: Times) => `${t.wall.toFixed(2)} / ${t.cpu.toFixed(2)}`;
    console.log(`${stem} | ${f(p)} | ${f(d)} | ${f(s)} | ${(d.cpu / p.cpu).toFixed(1)} | ${(s.cpu / p.cpu).toFixed(1)} | ${diff.toExponential(1)}`);
  }
}

main();
