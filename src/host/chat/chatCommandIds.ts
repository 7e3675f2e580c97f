import { Command } from '../../core/ids';

/** The commands the chat feature handles; registered at activation, handled once it has loaded. */
export const CHAT_COMMANDS = [
  Command.newChat,
  Command.ask,
  Command.explainSelection,
  Command.selectModel,
  Command.addSelectionToChat,
  Command.addFileToChat,
  Command.addProblemsToChat,
  Command.addImageToChat,
  Command.manageAllowedCommands,
  Command.instructionFiles,
] as const;
export type ChatCommand = (typeof CHAT_COMMANDS)[number];
