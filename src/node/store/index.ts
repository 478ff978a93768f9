/** The store group's only door: what the rest of the updater uses of it. */
export { AnswerFile } from './answer-file.js';
export {
  SWAP_STRATEGIES,
  chooseSwap,
  defaultSwap,
  isSwapStrategy,
  resolveCurrentSet,
} from './current-set.js';
export type { SwapStrategy } from './current-set.js';
export { FileStore } from './file-store.js';
export { stateDirPaths } from '../fs/index.js';
export type { StateDirPaths } from '../fs/index.js';
export { withTouchRecord } from './state-touch.js';
