// hello: s(v) = v^2. The eval's `double` is d square / d v, to be produced by AD.

export function square(x: number): number {
  return x * x;
}
