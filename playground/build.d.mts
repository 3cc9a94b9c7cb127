/** Builds the playground into `outDir` (default dist/playground); resolves with the output files' sizes in bytes, by name. */
export function buildPlayground(outDir?: string, options?: { minify?: boolean }): Promise<Record<string, number>>;
