/** The packs group's only door: small artifacts fetched as ranges of packs (docs/UPDATER.md §11). */
export { MemberPiece, PACK_COALESCE_RULE, splitByPack } from './pack-groups.js';
export type { PackGroup, PackSplit } from './pack-groups.js';
export { pullPacks } from './pack-pull.js';
export type { PackPullContext, PackPullHooks, PackPullResult } from './pack-pull.js';
export { pullWithPacks } from './pull-with-packs.js';
export type { PullProgress } from './pull-with-packs.js';
