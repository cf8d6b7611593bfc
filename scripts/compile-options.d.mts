/** The types of compile-options.mjs, for the tests that import it. */
export const optionalPackages: string[];
export const compileOptions: Record<string, unknown>;
export const sharedPackagePattern: RegExp;
export const untakenFallbacks: string[];
