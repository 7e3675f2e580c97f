import { Command } from '../../core/ids';

/** The media studio's commands (mediaStudio.ts), part of the media feature. */
export const MEDIA_STUDIO_COMMANDS = [
  Command.saveMediaResult,
  Command.insertMediaResult,
  Command.rerunMediaJob,
  Command.mediaVariation,
  Command.generateMediaFromImage,
  Command.openMediaGallery,
] as const;
export type MediaStudioCommand = (typeof MEDIA_STUDIO_COMMANDS)[number];

/** The commands the media feature handles; registered at activation, handled once it has loaded. */
export const MEDIA_COMMANDS = [
  Command.generateMedia,
  Command.refreshMediaJobs,
  Command.openMediaResult,
  Command.removeMediaJob,
  Command.copyMediaJobId,
  Command.clearFinishedMediaJobs,
  ...MEDIA_STUDIO_COMMANDS,
] as const;
export type MediaCommand = (typeof MEDIA_COMMANDS)[number];
