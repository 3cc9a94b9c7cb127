// GradBench's hand-written C++ tool ("manual") on this machine: the reference figures the evals table of
// bench/evals.ts sets tsad beside. Provenance: the project's reference notes (ANCHORS.md, kept outside this
// repository), "Reference figures: GradBench's C++ tools on this machine": measured 2026-11-25 on this
// machine (AMD EPYC, 2 cores, g++ 12.2 -O3, Node 20) by GradBench's own evaluators on each eval's default
// inputs (https://github.com/gradbench/gradbench, MIT licence), minimum over two rounds; times in
// milliseconds per call as the tool reports them (mean over a message's runs); d/p = derivative time /
// primal time of the same tool, as ANCHORS.md prints it (from the unrounded times, so it can differ from
// the quotient of the two rounded columns). Every answer was validated by the evaluators. Copied exactly,
// manual columns only (ANCHORS.md also lists Tapenade's d/p and tsad's figures at 4459f11).
//
// Inputs are GradBench's `description`s. ANCHORS.md has no rows for hello (not a benchmark: no sizes),
// particle and saddle (the manual tool does not implement them; the nested evals are compared among
// tsad's own four nestings). `ode`'s manual derivative is a closed form, not the program's derivative.
// The machine is shared: single figures moved up to 2x between rounds; compare ratios.
import type { EvalName } from '../evals/index.js';

export interface Anchor {
  eval: EvalName;
  /** GradBench's description of the input, e.g. "n=2500", "2_5_1000", "ba1_n49_m7776_p31843" */
  input: string;
  /** manual primal, ms per call */
  primalMs: number;
  /** manual derivative, ms per call */
  derivativeMs: number;
  /** manual derivative / primal */
  dp: number;
}

// eval | input | manual primal ms | manual derivative ms | manual d/p
const MANUAL = `
  det    | 5                          | 0.0011 | 0.0053 |  4.92
  det    | 6                          | 0.0066 |  0.037 |  5.61
  det    | 7                          |  0.043 |  0.298 |  6.85
  det    | 8                          |  0.385 |   2.91 |  7.58
  det    | 9                          |   3.21 |   27.9 |  8.69
  det    | 10                         |   30.9 |    306 |  9.89
  det    | 11                         |    384 |   3973 | 10.36
  lse    | n=2500                     |  0.019 |  0.015 |  0.78
  lse    | n=5000                     |  0.038 |  0.030 |  0.81
  lse    | n=10000                    |  0.076 |  0.060 |  0.79
  lse    | n=20000                    |  0.151 |  0.116 |  0.77
  lse    | n=40000                    |  0.305 |  0.239 |  0.78
  lse    | n=80000                    |  0.609 |  0.478 |  0.78
  lse    | n=160000                   |   1.21 |   1.10 |  0.91
  lse    | n=320000                   |   2.46 |   1.91 |  0.77
  lse    | n=640000                   |   4.80 |   3.85 |  0.80
  lse    | n=1280000                  |   9.62 |   8.06 |  0.84
  llsq   | n=16,m=128                 | 0.0017 | 0.0033 |  1.97
  llsq   | n=32,m=128                 | 0.0033 | 0.0065 |  1.96
  llsq   | n=64,m=128                 | 0.0065 |  0.013 |  1.99
  llsq   | n=128,m=128                |  0.013 |  0.026 |  1.97
  llsq   | n=256,m=128                |  0.026 |  0.053 |  2.02
  llsq   | n=512,m=128                |  0.052 |  0.104 |  1.99
  llsq   | n=1024,m=128               |  0.104 |  0.209 |  2.01
  llsq   | n=2048,m=128               |  0.206 |  0.419 |  2.03
  llsq   | n=4096,m=128               |  0.412 |  0.829 |  2.01
  llsq   | n=8196,m=128               |  0.825 |   1.66 |  2.02
  llsq   | n=16392,m=128              |   1.64 |   3.30 |  2.01
  ode    | n=1000,s=1                 | 0.0023 | 0.0017 |  0.73
  ode    | n=1000,s=10                |  0.014 | 0.0017 |  0.12
  ode    | n=10000,s=1                |  0.153 |  0.016 |  0.10
  ode    | n=1000,s=100               |  0.143 | 0.0017 |  0.01
  ode    | n=10000,s=10               |  0.344 |  0.016 |  0.05
  ode    | n=100000,s=1               |   1.39 |  0.160 |  0.12
  ode    | n=10000,s=100              |   2.08 |  0.016 |  0.01
  ode    | n=100000,s=10              |   3.53 |  0.161 |  0.05
  ode    | n=100000,s=100             |   24.3 |  0.160 |  0.01
  gmm    | 2_5_1000                   |  0.086 |  0.144 |  1.68
  gmm    | 2_10_1000                  |  0.147 |  0.323 |  2.19
  gmm    | 2_25_1000                  |  0.607 |  0.682 |  1.12
  gmm    | 10_5_1000                  |  0.448 |  0.820 |  1.83
  gmm    | 2_50_1000                  |  0.731 |   1.33 |  1.82
  gmm    | 10_10_1000                 |  0.805 |   1.50 |  1.86
  gmm    | 20_5_1000                  |  0.843 |   2.31 |  2.73
  gmm    | 32_5_1000                  |   1.34 |   3.70 |  2.76
  gmm    | 2_100_1000                 |   1.40 |   2.51 |  1.79
  gmm    | 20_10_1000                 |   1.64 |   3.70 |  2.25
  gmm    | 10_25_1000                 |   1.97 |   3.65 |  1.85
  gmm    | 32_10_1000                 |   2.68 |   7.45 |  2.78
  gmm    | 64_5_1000                  |   3.23 |   11.6 |  3.58
  gmm    | 10_50_1000                 |   3.91 |   7.36 |  1.88
  gmm    | 20_25_1000                 |   4.01 |   9.61 |  2.40
  gmm    | 64_10_1000                 |   8.63 |   25.7 |  2.98
  gmm    | 32_25_1000                 |   6.75 |   17.8 |  2.63
  gmm    | 10_100_1000                |   7.82 |   15.2 |  1.94
  gmm    | 20_50_1000                 |   8.46 |   18.6 |  2.21
  gmm    | 32_50_1000                 |   13.5 |   36.1 |  2.67
  gmm    | 64_25_1000                 |   15.9 |   59.0 |  3.72
  gmm    | 20_100_1000                |   15.8 |   36.2 |  2.29
  gmm    | 32_100_1000                |   27.2 |   76.8 |  2.82
  gmm    | 64_50_1000                 |   48.0 |    143 |  2.98
  gmm    | 64_100_1000                |   65.3 |    244 |  3.73
  kmeans | k=10,n=1000,d=8            |  0.030 |  0.033 |  1.11
  kmeans | k=10,n=1000,d=16           |  0.064 |  0.065 |  1.01
  kmeans | k=10,n=10000,d=8           |  0.299 |  0.337 |  1.13
  kmeans | k=100,n=1000,d=8           |  0.316 |  0.322 |  1.02
  kmeans | k=10,n=10000,d=16          |  0.575 |  0.751 |  1.31
  kmeans | k=100,n=1000,d=16          |  0.551 |  0.629 |  1.14
  kmeans | k=100,n=10000,d=8          |   2.89 |   3.29 |  1.14
  kmeans | k=1000,n=1000,d=8          |   2.85 |   3.36 |  1.18
  kmeans | k=100,n=10000,d=16         |   5.54 |   6.05 |  1.09
  kmeans | k=1000,n=1000,d=16         |   5.54 |   6.24 |  1.13
  kmeans | k=1000,n=10000,d=8         |   28.4 |   32.4 |  1.14
  kmeans | k=1000,n=10000,d=16        |   59.9 |   75.5 |  1.26
  lstm   | l=2,c=1024                 |   1.47 |   10.1 |  6.87
  lstm   | l=4,c=1024                 |   2.80 |   31.8 | 11.38
  lstm   | l=6,c=1024                 |   4.12 |   70.9 | 17.21
  lstm   | l=2,c=4096                 |   5.69 |   40.5 |  7.13
  lstm   | l=2,c=8192                 |   11.5 |   79.1 |  6.89
  lstm   | l=4,c=4096                 |   11.2 |    127 | 11.32
  lstm   | l=6,c=4096                 |   16.5 |    285 | 17.32
  lstm   | l=4,c=8192                 |   22.7 |    249 | 10.96
  lstm   | l=6,c=8192                 |   32.9 |    571 | 17.34
  ht     | hand1_t26_c100             |   2.66 |   11.7 |  4.40
  ht     | hand2_t26_c192             |   2.67 |   12.6 |  4.70
  ht     | hand3_t26_c200             |   2.68 |   12.4 |  4.64
  ht     | hand4_t26_c400             |   2.67 |   12.0 |  4.50
  ht     | hand5_t26_c800             |   2.89 |   12.2 |  4.22
  ht     | hand6_t26_c1600            |   2.69 |   13.3 |  4.93
  ht     | hand7_t26_c3200            |   2.86 |   13.3 |  4.64
  ht     | hand8_t26_c6400            |   2.54 |   15.2 |  5.98
  ht     | hand9_t26_c12800           |   2.85 |   19.3 |  6.77
  ht     | hand10_t26_c25600          |   2.66 |   24.8 |  9.31
  ht     | hand11_t26_c51200          |   2.92 |   36.7 | 12.57
  ba     | ba1_n49_m7776_p31843       |  0.856 |   5.89 |  6.88
  ba     | ba2_n21_m11315_p36455      |  0.989 |   7.04 |  7.12
  ba     | ba3_n161_m48126_p182072    |   5.14 |   66.2 | 12.87
  ba     | ba4_n372_m47423_p204472    |   5.76 |   70.9 | 12.30
  ba     | ba5_n257_m65132_p225911    |   6.52 |   86.3 | 13.24
  ba     | ba6_n539_m65220_p277273    |   8.04 |    113 | 14.02
  ba     | ba7_n93_m61203_p287451     |   8.18 |    114 | 13.95
  ba     | ba8_n88_m64298_p383937     |   10.8 |    157 | 14.53
  ba     | ba9_n810_m88814_p393775    |   11.3 |    163 | 14.39
  ba     | ba10_n1197_m126327_p563734 |   16.4 |    226 | 13.75
  ba     | ba11_n1723_m156502_p678718 |   19.2 |    298 | 15.54
  ba     | ba12_n253_m163691_p899155  |   30.5 |    390 | 12.81
  ba     | ba13_n245_m198739_p1091386 |   37.6 |    443 | 11.78
  ba     | ba14_n356_m226730_p1255268 |   36.1 |    507 | 14.05
`;

/** Why an eval has no C++ figures. */
export const NO_ANCHOR: Partial<Record<EvalName, string>> = {
  hello: 'not a benchmark (a protocol smoke test, no sizes); not in ANCHORS.md',
  particle: "GradBench's manual tool does not implement it; not in ANCHORS.md",
  saddle: "GradBench's manual tool does not implement it; not in ANCHORS.md",
};

/** Parses the MANUAL table (throws on a malformed row). */
export function parseAnchors(text: string = MANUAL): Anchor[] {
  const out: Anchor[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const f = line.split('|').map((s) => s.trim());
    const nums = f.slice(2).map(Number);
    if (f.length !== 5 || nums.some((x) => !Number.isFinite(x) || x <= 0)) throw new Error(`anchors: malformed row "${line}"`);
    out.push({ eval: f[0] as EvalName, input: f[1], primalMs: nums[0], derivativeMs: nums[1], dp: nums[2] });
  }
  return out;
}

export const ANCHORS: readonly Anchor[] = parseAnchors();

/** The manual tool's figures for one input, if ANCHORS.md has them. */
export function anchorOf(ev: EvalName, input: string): Anchor | undefined {
  return ANCHORS.find((a) => a.eval === ev && a.input === input);
}
