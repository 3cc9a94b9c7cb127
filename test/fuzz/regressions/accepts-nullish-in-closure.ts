// Hand-reduced from program #1056 of `npm run fuzz -- --count 5000 --seed 261126`: `??` on a nullable
// parameter read inside an arrow passed to a helper. TypeScript types it `any` there, and tsad refused
// "the result of `??` here is not a number or a nullable number"
export function twice(g: (x: number) => number, v: number): number {
  return g(g(v));
}

export function f(a: number[], y: number | undefined): number {
  let s = 0;
  for (let k = 0; k < 2; k++) s = Math.tanh(s + twice((x) => Math.tanh(x * (Array.isArray(y) ? a[0] : (y ?? a[k]))), a[1]));
  return s;
}
