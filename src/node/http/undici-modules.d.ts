/**
 * Types of the undici module undici-entry.ts imports by path (undici ships types for its
 * index only): the same class its index exports.
 */
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
