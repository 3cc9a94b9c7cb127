// tsad's intermediate representation: structured control flow, typed expressions,
// explicit array and field effects, a source position and comments on every node.
// Transformations map IR to IR; only src/backend prints it.

export interface Loc {
  file: string;
  line: number; // 1-based
  col: number; // 1-based
}

export type Ty =
  | { k: 'num' } // float64 (JavaScript number)
  | { k: 'int' } // integer-valued number, never active (inferred or generated)
  | { k: 'bool' }
  | { k: 'str'; lits: string[] } // string-literal flags, passive
  | { k: 'void' }
  | { k: 'tape' } // runtime tape handle (generated code only)
  // number[] / a typed array / readonly. `ctor` names a typed array other than Float64Array (absent:
  // Float64Array): a Float32Array has `num` elements (rounded on store), the integer ones `int` elements
  // (passive). Derivatives of typed arrays are Float64Arrays (derivTy drops `ctor`).
  | { k: 'arr'; elem: Ty; typed: boolean; ro: boolean; ctor?: TypedCtor }
  | { k: 'tuple'; elems: Ty[]; ro: boolean }
  | { k: 'obj'; name: string | null; fields: Field[] }
  // `T | null`, `T | undefined`, `T | false` (src/frontend/nullable.ts): the value is `base` or one of `none`.
  // Its derivative is one of `base` (zero where the value is absent); reads of it are only tests
  // (`=== null`, `??`) and reads narrowed by a test (`nn` on the var or field node).
  | { k: 'opt'; base: Ty; none: NoneKind[] };

/** typed arrays other than Float64Array, by the name of their constructor (src/frontend/typed-arrays.ts) */
export type TypedCtor = 'Float32Array' | 'Int8Array' | 'Uint8Array' | 'Uint8ClampedArray' | 'Int16Array' | 'Uint16Array' | 'Int32Array' | 'Uint32Array';

export type NoneKind = 'null' | 'undefined' | 'false';

export interface Field {
  name: string;
  ty: Ty;
  optional?: boolean;
}

export type BinOp =
  | '+' | '-' | '*' | '/' | '%' | '**'
  | '<' | '<=' | '>' | '>=' | '===' | '!==' | '==' | '!='
  | '&&' | '||' | '|' | '&' | '^' | '<<' | '>>' | '>>>';
export type UnOp = '-' | '+' | '!' | '~';

interface Node {
  loc?: Loc;
  /** the source form an expression or statement was lowered from, when it is not its own (coverage accounting only) */
  origin?: string;
}

export type Expr =
  | (Node & { k: 'num'; v: number; raw?: string })
  // tt: an operand of `&&`/`||` in a test, counted by its truthiness (`!!v`, or true for an object), for coverage accounting only
  | (Node & { k: 'bool'; v: boolean; tt?: true })
  | (Node & { k: 'str'; v: string })
  | (Node & { k: 'undef' })
  // nn: a read of a nullable variable or field that a test has narrowed to its base type (printed `x!`)
  | (Node & { k: 'var'; name: string; ty: Ty; nn?: boolean })
  | (Node & { k: 'global'; name: string; ty: Ty }) // module-level const data, passive
  | (Node & { k: 'bin'; op: BinOp; a: Expr; b: Expr; ty: Ty })
  | (Node & { k: 'un'; op: UnOp; a: Expr; ty: Ty; tt?: true })
  // sc: lowered from a short circuit on numbers (`a ?? b`, `a || b`, `a && b`), for coverage accounting only
  | (Node & { k: 'cond'; c: Expr; a: Expr; b: Expr; ty: Ty; sc?: '??' | '||' | '&&' })
  // call of a user function of the compilation; origin: lowered from a class form (coverage accounting only)
  // custom: the callee has a hand-written derivative rule or is passive (src/frontend/custom-derivatives.ts)
  | (Node & { k: 'call'; fn: string; args: Expr[]; ty: Ty; origin?: 'class.new' | 'class.method' | 'fn.arg'; custom?: 'rule' | 'passive' })
  // call of an intrinsic: Math.*, isFinite, tape operations, runtime helpers
  | (Node & { k: 'intr'; fn: string; args: Expr[]; ty: Ty })
  | (Node & { k: 'idx'; obj: Expr; index: Expr; ty: Ty })
  | (Node & { k: 'field'; obj: Expr; name: string; ty: Ty; nn?: boolean })
  | (Node & { k: 'len'; obj: Expr })
  | (Node & { k: 'arrlit'; elems: Expr[]; ty: Ty })
  | (Node & { k: 'objlit'; fields: { name: string; value: Expr }[]; ty: Ty })
  // new Float64Array(len) / new Array(len).fill(fill): zero-filled unless fill given
  | (Node & { k: 'alloc'; len: Expr; fill: Expr | null; ty: Ty })
  // Float64Array subarray view
  | (Node & { k: 'sub'; obj: Expr; start: Expr; end: Expr | null; ty: Ty })
  // new Error(msg) and other passive, opaque expressions kept verbatim (throw only)
  | (Node & { k: 'raw'; text: string; ty: Ty });

export type LValue = Extract<Expr, { k: 'var' } | { k: 'idx' } | { k: 'field' }>;

interface SNode extends Node {
  comments?: string[];
  /** the source form a statement was lowered from, when it is not its own (coverage accounting only) */
  origin?: string;
}

export type Stmt =
  // `hoisted`: a `var` binding declared at the top of its function (the front end's record, for coverage)
  // (`widened`: a `const` the source gave a wider type than its literal initializer's, `const n: number = 3`:
  // printed with it, or TypeScript types `n` as `3` and refuses `n === 1`)
  | (SNode & { k: 'decl'; name: string; ty: Ty; init: Expr | null; konst: boolean; hoisted?: boolean; widened?: boolean })
  // `op` records a compound assignment for printing; `value` is always the full right-hand side
  | (SNode & { k: 'assign'; target: LValue; value: Expr; op?: BinOp; inc?: boolean })
  | (SNode & { k: 'expr'; e: Expr })
  | (SNode & { k: 'if'; c: Expr; then: Stmt[]; else: Stmt[] })
  | (SNode & { k: 'for'; label?: string; init: Stmt[]; cond: Expr | null; update: Stmt[]; body: Stmt[] })
  | (SNode & { k: 'while'; label?: string; cond: Expr; body: Stmt[] })
  | (SNode & { k: 'do'; label?: string; body: Stmt[]; cond: Expr })
  | (SNode & { k: 'switch'; label?: string; disc: Expr; cases: { tests: Expr[] | null; body: Stmt[] }[] })
  | (SNode & { k: 'block'; label?: string; body: Stmt[] })
  | (SNode & { k: 'break'; label?: string })
  | (SNode & { k: 'continue'; label?: string })
  | (SNode & { k: 'return'; e: Expr | null })
  | (SNode & { k: 'throw'; e: Expr });

export interface Param {
  name: string;
  ty: Ty;
  def?: Expr; // default value
  optional?: boolean; // `y?: T`: may be left out (its type is opt)
  rest?: boolean; // `...xs: number[]`: its callers' trailing arguments, gathered into a fresh array at each call
  /** the source's name where generated code renames the parameter (`x` beside a module constant `x` is `x0`):
   * what `wrt`, `of` and `--input` may name it by */
  source?: string;
  /** generated parameters: what they carry, and for which primal parameter */
  role?: 'tangent' | 'adjoint' | 'seed' | 'directions' | 'tape';
  of?: string;
}

export interface Func {
  name: string;
  params: Param[];
  ret: Ty;
  body: Stmt[];
  exported: boolean;
  loc?: Loc;
  comments?: string[];
  /** `declare function f(…): T;`: a black box bound at run time, with no body to differentiate */
  external?: boolean;
  /** a hand-written derivative, or passive (src/frontend/custom-derivatives.ts) */
  custom?: CustomRule;
  /** the declared result `T[] | null`, returned as the pair `[array, isSet]` (src/frontend/nullable-locals.ts) */
  nullableResult?: Extract<Ty, { k: 'opt' }>;
}

/**
 * How a function is differentiated instead of through its body: by hand-written rules (functions of
 * the module with the signatures of its `f_d` and `f_b` when every number-carrying parameter is
 * differentiated), or not at all (passive: its result carries no derivative).
 */
export interface CustomRule {
  passive: boolean;
  tangent?: string;
  adjoint?: string;
  /** where the rule was declared: a companion by name, a `$ad` directive, compile()'s option, or generated by coarsening (src/transform/coarsen) */
  from: 'companion' | 'directive' | 'option' | 'coarsen';
  loc?: Loc;
  /**
   * parameters whose derivative the rules neither read nor write (coarsening generates rules for the
   * compilation's activity: no caller varies these); their array adjoints are passed as empty arrays
   */
  ignores?: string[];
}

export interface GlobalConst {
  name: string;
  ty: Ty;
  /** null: an ambient `declare const` bound at run time (the runtime API's scope data) */
  init: Expr | null;
  loc?: Loc;
}

export interface Module {
  funcs: Map<string, Func>;
  globals: Map<string, GlobalConst>;
  /** functions in source order (deterministic iteration) */
  order: string[];
  /** named object types (interfaces and aliases) in source order */
  types: Map<string, Ty>;
  /** functions outside the subset, with their diagnostics: an error only if the head reaches them */
  failed: Map<string, FailedFunc>;
}

export interface FailedFunc {
  diagnostics: { file: string; line: number; col: number; message: string; hint?: string; frame?: string; severity: 'error' | 'warning' }[];
  /** functions it calls (by name), for reachability */
  calls: string[];
}
