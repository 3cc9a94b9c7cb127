// lse: log-sum-exp with the max shift.
//   primal   = logsumexp(x)
//   gradient = d logsumexp / d x   (reverse mode; the shift `a` may be active or not,
//              its contributions cancel; the result is the softmax)

export function logsumexp(x: number[]): number {
  const n = x.length;
  let a = x[0];
  for (let i = 1; i < n; i++) {
    if (x[i] > a) a = x[i];
  }
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += Math.exp(x[i] - a);
  }
  return a + Math.log(sum);
}
