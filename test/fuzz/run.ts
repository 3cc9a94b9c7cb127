// Long fuzz campaigns:  npm run fuzz -- --count 2000 --seed 7
//
// `npm run fuzz` type-checks and compiles this script (with the fuzzer and the compiler sources it
// imports) by `tsc -p test/fuzz/tsconfig.json` into node_modules/.cache/tsad-fuzz/dist/, then runs it
// with node. The compiler under test is bundled from src/ at start (test/fuzz/harness.ts), so the
// campaign always exercises the current sources.
//
// Options: --count N (programs, default 500), --seed S (default: random, printed), --no-save (do not
// shrink and save failures), --shrink-per-prop K (failures shrunk per signature, default 3),
// --props p,q (shrink only failures of these properties), --dir D (save there instead), --show (with
// --no-save: print the unshrunk failing programs).
// Each failure is shrunk by fast-check and saved as test/fuzz/regressions/<property>-<hash>.ts (the
// module) + .json (head, arguments, what was observed and expected); test/fuzz.test.ts replays them.
import { resolve } from 'node:path';
import { PROPS, type Prop } from './checks.js';
import { runCampaign } from './harness.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const count = Number(arg('count') ?? 500);
const seed = Number(arg('seed') ?? Math.floor(Math.random() * 2 ** 31));
const save = !process.argv.includes('--no-save');
const shrinkPerProp = Number(arg('shrink-per-prop') ?? 3);
const shrinkProps = arg('props')?.split(',') as Prop[] | undefined;
const dir = arg('dir') === undefined ? undefined : resolve(arg('dir')!);

console.log(`tsad fuzz: ${count} programs, seed ${seed}${save ? '' : ' (no shrinking)'}`);
const r = await runCampaign({ seed, count, save, shrinkPerProp, shrinkProps, dir, log: (s) => console.log(s), progressEvery: 100 });
console.log('');
console.log(`programs: ${r.programs}`);
console.log(`checks:   ${r.totalChecks} (${PROPS.filter((p) => r.checks[p]).map((p) => `${p} ${r.checks[p]}`).join(', ')})`);
console.log(`points skipped (original non-finite): ${r.nonfinite}; resampled (unstable tangent check): ${r.unstable}; worker restarts: ${r.restarts}`);
console.log(`time:     ${(r.ms / 1000).toFixed(1)} s`);
const byProp = new Map<string, number>();
for (const f of r.failures) byProp.set(f.prop, (byProp.get(f.prop) ?? 0) + 1);
console.log(`failures: ${r.failures.length}${r.failures.length ? ` (${[...byProp].map(([p, n]) => `${p} ${n}`).join(', ')})` : ''}`);
if (!save) {
  // without shrinking: the first failures of each property, unshrunk
  const shown = new Map<string, number>();
  for (const f of r.failures) {
    if ((shown.get(f.prop) ?? 0) >= 2) continue;
    shown.set(f.prop, (shown.get(f.prop) ?? 0) + 1);
    console.log(`\n── program #${f.index} [${f.prop}] ${f.finding.message}`);
    if (f.finding.observed) console.log(`   observed: ${f.finding.observed.slice(0, 400)}`);
    if (f.finding.expected) console.log(`   expected: ${f.finding.expected.slice(0, 400)}`);
    if (process.argv.includes('--show')) console.log(f.source);
  }
}
for (const s of r.shrunk) {
  console.log('');
  console.log(`── ${s.file}  [${s.prop}] ${s.finding.message}`);
  if (s.finding.observed) console.log(`   observed: ${s.finding.observed}`);
  if (s.finding.expected) console.log(`   expected: ${s.finding.expected}`);
  console.log(s.program.source.replace(/^export interface P \{\n(?: {2}\w+: number;\n)+\}\n\n/, '').replace(/^/gm, '   '));
}
process.exitCode = r.failures.length ? 1 : 0;
