import type { Rule } from 'eslint';

/** The local no-cycle rule (see eslint-no-cycle.js). */
export declare const noCycle: Rule.RuleModule;
