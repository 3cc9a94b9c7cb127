// Shrunk by the fuzzer (npm run fuzz): checker — checkCompiled threw in unpackDirection: Cannot read properties of undefined (reading '0')
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(x: number, out: number[]): void {
  for (let j0 = 0; j0 < out.length; j0++) {
    out[j0] = 0.5;
  }
}
