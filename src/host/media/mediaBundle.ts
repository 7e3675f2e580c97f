/**
 * The media-jobs feature's entry: the model, poller, tree, store, preview
 * and commands. Only `mediaLoader.ts` requires it, when the Media Jobs view first asks for its
 * items, a media command runs, or stored jobs must resume polling; activation never evaluates it.
 */
export { MediaJobsFeature } from './mediaJobsFeature';
export type { MediaJobsDeps } from './jobs/mediaJobs';
