// One import for test files: import { client, rejectsWith, ... } from './lib/index.mjs'.
export * from './stack.mjs';
export * from './admin.mjs';
export * from './errors.mjs';
export * from './formats.mjs';
