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
  let fo0 = 0;
  const t1: [number, number] = [Math.tanh(((typeof y !== 'number' ? fo0 : y) + 0.5)), 0.5];
  let k2 = 0;
  while (k2 < 2) {
    k2++;
    const t3 = t1;
    t3[0] = 0.5 * t3[0] + Math.tanh(((typeof y !== 'number' ? fo0 : y) + 0.5));
  }
  for (let k4 = 0; k4 < 2; k4++) {
    let k5 = 0;
    while (k5 < 2) {
      k5++;
      const t6 = t1;
      t6[0] = 0.5 * t6[0] + Math.tanh(((typeof y !== 'number' ? fo0 : y) + 0.5));
    }
  }
  fo0 += 0.25 * (t1[0] - t1[1]);
  let ex7 = 0;
  let k8 = 0;
  const buf9: number[] = [0, 0, 0];
  buf9[k8++] = Math.tanh(0.5);
  buf9[k8++] = 0.5 * buf9[0] + Math.sin(0.5);
  buf9[k8] = buf9[--k8] * buf9[k8 - 1];
  let t10 = 1;
  ex7 += t10++ * buf9[2] + ++t10 * buf9[k8--] - buf9[k8];
  ex7 += Math.atan2(buf9[k8++] + 2, buf9[--k8 + 1]) * t10--;
  return 0.5 + 0.25 * Math.tanh(fo0) + 0.25 * Math.tanh(ex7);
}
