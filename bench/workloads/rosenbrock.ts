// Benchmark workload: the chained Rosenbrock function (compiler input). Its Hessian is tridiagonal.
export function chainedRosenbrock(x: number[]): number {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) {
    const a = x[i + 1] - x[i] * x[i];
    const b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}
