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
// --no-save: print the unshrunk failing programs), --coverage-md F (also write the coverage table as
// markdown to F), --coverage-only (generate and classify the programs, compile and check none),
// --coarsen (check the programs compiled with coarsening, against statement-level AD: issue 19; it
// implies --no-save, since the regression files replay statement-level compiles).
// Each failure is shrunk by fast-check and saved as test/fuzz/regressions/<property>-<hash>.ts (the
// module) + .json (head, arguments, what was observed and expected); test/fuzz-regressions.test.ts replays them.
import { dirname, resolve } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { PROPS, type Prop } from './checks.js';
import { coverageTable, impossibleSeen, underCovered, type Counts } from './coverage.js';
import { coverageCensus, runCampaign } from './harness.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const count = Number(arg('count') ?? 500);
const seed = Number(arg('seed') ?? Math.floor(Math.random() * 2 ** 31));
const save = !process.argv.includes('--no-save') && !process.argv.includes('--coarsen');
const shrinkPerProp = Number(arg('shrink-per-prop') ?? 3);
const shrinkProps = arg('props')?.split(',') as Prop[] | undefined;
const dir = arg('dir') === undefined ? undefined : resolve(arg('dir')!);

const coverageMd = arg('coverage-md');

/** the coverage table (and the markdown file when asked) */
function showCoverage(counts: Counts): void {
  console.log('');
  console.log(`coverage (form × type class × effect, by loop strategy; n! = accepted cell produced fewer than 3 times, · = cannot occur):`);
  console.log(coverageTable(counts));
  const under = underCovered(counts);
  console.log(`cells under the minimum: ${under.length}`);
  const odd = impossibleSeen(counts);
  if (odd.length) console.log(`cells counted that the rules call impossible: ${odd.join(', ')}`);
  if (coverageMd) {
    // (a campaign without failures has made no directory of its own)
    mkdirSync(dirname(resolve(coverageMd)), { recursive: true });
    writeFileSync(coverageMd, `# tsad fuzz coverage: ${count} programs, seed ${seed}\n\n${coverageTable(counts, undefined, true)}`);
    console.log(`coverage table written to ${coverageMd}`);
  }
}

if (process.argv.includes('--coverage-only')) {
  console.log(`tsad fuzz: coverage of ${count} programs, seed ${seed} (not compiled or checked)`);
  const c = await coverageCensus(seed, count);
  if (c.refused) console.log(`programs the front end refused: ${c.refused}`);
  showCoverage(c.coverage);
  process.exit(underCovered(c.coverage).length || c.refused ? 1 : 0);
}

console.log(`tsad fuzz: ${count} programs, seed ${seed}${save ? '' : ' (no shrinking)'}`);
const coarsen = process.argv.includes('--coarsen');
if (coarsen) console.log('with coarsening: the adjoints checked are coarsened, compared with statement-level AD');
const r = await runCampaign({ seed, count, save, shrinkPerProp, shrinkProps, dir, log: (s) => console.log(s), progressEvery: 100, coarsen });
console.log('');
console.log(`programs: ${r.programs}`);
console.log(`checks:   ${r.totalChecks} (${PROPS.filter((p) => r.checks[p]).map((p) => `${p} ${r.checks[p]}`).join(', ')})`);
console.log(`points skipped (original non-finite): ${r.nonfinite}; resampled (unstable tangent check): ${r.unstable}; worker restarts: ${r.restarts}`);
if (coarsen) console.log(`coarsened: ${r.coarsened} of ${r.programs} programs (whole functions or segments); a recorded loop replayed in ${r.replayed}`);
console.log(`as JavaScript: ${r.js.jsdoc} typed by JSDoc, ${r.js.plain} plain through the runtime API (refused there: ${r.js.refused.length})`);
const reasons = new Map<string, number>();
const reason = (m: string) => m.replace(/'[^']*'/g, "'…'").replace(/:\d+:\d+:/, ':').slice(0, 160);
for (const m of r.js.refused) reasons.set(reason(m), (reasons.get(reason(m)) ?? 0) + 1);
for (const [m, n] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  ${n}× ${m}`);
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
showCoverage(r.coverage);
process.exitCode = r.failures.length ? 1 : 0;
