/**
 * The entry of the chat bundle (`dist/chat.js`): the session, the view and its router, the
 * commands. Only `chatLoader.ts` requires it, when the chat view resolves or a chat command runs,
 * so activation neither parses nor evaluates any of it.
 */
export { ChatFeature } from './chatFeature';
export type { ChatFeatureDeps } from './chatFeature';
