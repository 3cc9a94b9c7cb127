// Modules the build makes up (playground/build.mjs), and the style sheets esbuild bundles into main.css.

declare module 'virtual:stdlib' {
  /** TypeScript's lib files tsad type-checks against, by file name (lib.es2023.d.ts and what it references) */
  export const LIBS: Record<string, string>;
}

declare module 'virtual:examples' {
  /** playground/examples/*.ts in file-name order; the title is each file's first comment line */
  export const EXAMPLES: { file: string; title: string; source: string }[];
}

declare module '*.css';
