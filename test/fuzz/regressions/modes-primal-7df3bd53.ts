// Shrunk by the fuzzer (npm run fuzz): modes-primal — primal values after f_d, f_dv, f_b differ from the primal's
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[]): number {
  {
    v0[0] = Math.tanh(0.5);
  }
  return Math.tanh(0.5);
}

export function f(x: number, out: number[]): void {
  const q0: P = { u: Math.tanh((0.5 + (out[0] + 0.5))), v: Math.sin(g0(out)), w: 0.5 };
  for (let j1 = 0; j1 < out.length; j1++) {
    out[j1] = 0.5 + 0.125 * (x + out[0] + q0.u);
  }
}
