// Shrunk by the fuzzer (npm run fuzz): runtime — generated code threw in the sparse vector mode: Cannot read properties of undefined (reading '0')
export interface P {
  u: number;
  v: number;
  w: number;
  z?: number;
}

export interface Q {
  a: number[];
  s: number;
}

export function f(y?: number): number {
  let st0: number[] = [Math.tanh(0.5), 1];
  st0[1] = 0.5 * st0[1] + 0.5 * Math.tanh(0.5);
  st0 = [st0[0] + 0.1 * st0[1] + 0.1 * Math.tanh(0.5), st0[1] - 0.1 * Math.sin(st0[0])];
  let cl1 = 0;
  const g3 = st0[1] > 0.5 ? (x2: number): number => Math.tanh(x2 * ((typeof y !== 'number' ? x2 : y) + 0.5)) : (x2: number): number => 0.5 * x2;
  cl1 = Math.tanh(cl1 + g3(st0[1]) - 0.5 * g3(0.5));
  return 0.5 + 0.25 * Math.tanh(cl1);
}
