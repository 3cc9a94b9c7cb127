// The public API of tsad.
export { compile, compileModule, frontEnd, type CompileOptions, type CompileResult, type ManifestEntry, type ManifestParam, type Mode, type ModeName } from './api/compile.js';
export { compileHvp, compileElements, type HvpOptions } from './api/hessian.js';
export { checkCompiled, type CheckOptions, type CheckReport } from './api/check.js';
export { loadGenerated, type LoadedModule } from './api/load.js';
export { grad, valueAndGrad, jvp, vjp, jacobian, jacfwd, jacrev, hvp, hessian, sparseJacobian, sparseHessian, hessianDiagonal, type RuntimeOptions, type Wrt } from './api/runtime.js';
export type { SparseMatrix, SparseInfo } from './api/sparse.js';
export { csrOf } from './api/sparse.js';
export { blockJacobian } from './api/blocks.js';
export type { Gradient, Tangents, ResultTangent, OptionsFor } from './api/types.js';
export { formatDiagnostic, TsadError, type Diagnostic } from './frontend/diagnostics.js';
export { RULES } from './rules/table.js';
export { setLibReader } from './frontend/stdlib.js';
export { eraAdjoint, eraPrimitives, type EraOptions, type EraResult, type Strategy as EraStrategy } from './transform/effrec.js';
