// Types of scripts/closest-option.mjs for TypeScript callers (tests).
export function editDistance(a: string, b: string): number;
export function closestOption(option: string, known: Iterable<string>): string | undefined;
export function unknownOptionMessage(option: string, known: Iterable<string>): string;
