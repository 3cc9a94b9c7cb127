// Shrunk by the fuzzer (npm run fuzz): modes-primal — primal values after f_b differ from the primal's
export interface P {
  u: number;
  v: number;
  w: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function f(x: number, out: number[]): void {
  for (let i0 = 0; i0 < 2; i0++) {
    B2: {
      if (0.5 < 0.5) break B2;
      x = Math.tanh(x);
      if (0.5 > (-0.5)) break;
    }
  }
  for (let j3 = 0; j3 < out.length; j3++) {
    out[j3] = 0.5 + 0.125 * (x + out[0]);
  }
}
