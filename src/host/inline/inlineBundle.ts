/**
 * The entry of the inline-completions bundle (`dist/inline.js`): the provider and the engine it
 * drives. Only `inlineLoader.ts` requires it, on VS Code's first request for a completion.
 */
export { InlineCompletionsFeature } from './inlineFeature';
export type { AcceptedCompletion, InlineFeatureDeps } from './inlineFeature';
