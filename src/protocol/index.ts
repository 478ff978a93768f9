export * from './activity.js';
export * from './artifact-name.js';
export * from './ed25519.js';
export * from './envelope.js';
export * from './error-body.js';
export * from './keys.js';
export * from './manifest.js';
export * from './protocol-error.js';
