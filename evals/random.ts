// Small seeded generators for building benchmark inputs at the default sizes.
// The evals draw from NumPy's generators; per README.md, inputs from the same
// distributions with any generator are equivalent for benchmarking (golden files
// are used for correctness). Not part of the code fed to the AD compiler.

/** Uniform [0, 1) generator (mulberry32; 32-bit state, deterministic per seed). */
export function uniform(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal generator (Box–Muller over `uniform(seed)`). */
export function normal(seed: number): () => number {
  const u = uniform(seed);
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    let u1 = u();
    while (u1 === 0) u1 = u();
    const r = Math.sqrt(-2 * Math.log(u1));
    const th = 2 * Math.PI * u();
    spare = r * Math.sin(th);
    return r * Math.cos(th);
  };
}

export function randomVector(n: number, rand: () => number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = rand();
  return out;
}

export function randomMatrix(rows: number, cols: number, rand: () => number): number[][] {
  const out = new Array<number[]>(rows);
  for (let r = 0; r < rows; r++) out[r] = randomVector(cols, rand);
  return out;
}
