// Types of scripts/package-links.mjs for its unit test.
export const BACKUP: string;
export function packageLinks(
  rootManifest: { repository?: string | { url?: string }; homepage?: string },
  directory: string,
): {
  links: { repository?: { type: 'git'; url: string; directory: string }; homepage?: string };
  missing: ('repository' | 'homepage')[];
};
export function stampLinks(packageDir: string, rootDir?: string): string | undefined;
export function restoreLinks(packageDir: string): void;
