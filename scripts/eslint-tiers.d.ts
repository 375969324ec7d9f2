import type { Rule } from 'eslint';

/** The tiers of src/features/, bottom up (see eslint-tiers.js). */
export declare const TIERS: ReadonlyArray<{ name: string; features: readonly string[] }>;
/** The local tiers rule (see eslint-tiers.js). */
export declare const tiers: Rule.RuleModule;
