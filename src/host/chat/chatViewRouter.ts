import * as vscode from 'vscode';
import { Command, SettingSection } from '../../core/ids';
import { isAllowedLink } from '../../core/protocol/chatProtocol';
import type { WebviewMessage } from '../../core/protocol/chatProtocol';
import type { Logger } from '../log/logger';
import type { ChatSession } from './chatSession';
import type { AttachmentCommandDeps } from './attachmentCommands';
import { attachUris } from './attachmentCommands';
import { notify } from '../notify';
import type { Settings } from '../config/settings';
import { creditsPageUrl } from '../../core/catalog/creditsCodec';
import { WorkspaceFiles } from './workspaceFiles';
import type { ChatModes } from './agentModes';
import { base64Bytes } from '../../api/base64';

/**
 * Where each validated message from the chat view goes: the conversation's intents to the
 * session, the rest (clipboard, editors, links, our commands) handled here. One intent, one case.
 */
export class ChatViewRouter {
  private readonly files = new WorkspaceFiles();

  constructor(
    private readonly session: ChatSession,
    private readonly settings: Settings,
    private readonly logger: Logger,
    private readonly attachments?: AttachmentCommandDeps,
    private readonly modes?: ChatModes,
  ) {}

  async handle(message: WebviewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        return this.session.sendState();
      case 'send':
        return this.session.send(message.text);
      case 'stop':
        return this.session.stop();
      case 'editQueued':
        this.session.editQueued(message.id, message.text);
        return;
      case 'removeQueued':
        this.session.removeQueued(message.id);
        return;
      case 'retry':
        return this.session.retry(message.turnId);
      case 'editAndResend':
        return this.session.editAndResend(message.turnId, message.text);
      case 'newChat':
        return this.session.newChat();
      case 'openConversation':
        return this.session.open(message.id);
      case 'deleteConversation':
        return this.session.delete(message.id);
      case 'exportConversation':
        await this.session.exportMarkdown();
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(message.text);
        return;
      case 'insertCode':
        return this.insertCode(message.code);
      case 'openCode': {
        const doc = await vscode.workspace.openTextDocument({
          content: message.code,
          language: message.language || undefined,
        });
        await vscode.window.showTextDocument(doc, { preview: false });
        return;
      }
      case 'openLink':
        return this.openLink(message.href);
      case 'setApiKey':
        await vscode.commands.executeCommand(Command.setApiKey);
        return;
      case 'selectModel':
        await vscode.commands.executeCommand(Command.selectModel);
        return;
      case 'openSettings':
        await vscode.commands.executeCommand('workbench.action.openSettings', `${SettingSection.all}.`);
        return;
      case 'manageTrust':
        await vscode.commands.executeCommand('workbench.trust.manage');
        return;
      case 'addCredits':
        return addCredits(this.settings.current.baseUrl);
      case 'removeAttachment':
        this.attachments?.tray.remove(message.id);
        return;
      case 'attachFile':
        await vscode.commands.executeCommand(Command.addFileToChat);
        return;
      case 'attachUris':
        return this.attachDropped(message.uris);
      case 'attachImage':
        return this.attachImage(message.name, message.mimeType, message.data);
      case 'leaveOutOldestTurns':
        await this.session.leaveOutOldestTurns(message.promptTokens);
        return;
      case 'includeLeftOutTurns':
        return this.session.includeLeftOutTurns();
      case 'findFiles':
        // The chosen file comes back as `attachUris`, checked like a file dropped on the chat.
        this.session.postToView({
          type: 'fileSuggestions',
          query: message.query,
          files: await this.files.suggest(message.query),
        });
        return;
      case 'mediaAction':
        return this.session.mediaAction(message.action, message.jobId);
      case 'setEffort':
        return this.session.menu?.setEffort(message.model, message.effort);
      case 'setRouting':
        return this.session.menu?.setRouting(message.model, message.routing);
      case 'setChatTools':
        return this.session.menu?.setTools(message.tools);
      case 'toolDecision':
      case 'openToolDiff':
      case 'undoTurn':
      case 'restoreCheckpoint':
      case 'redoCheckpoint':
      case 'setAgentTools':
      case 'setToolSource':
      case 'agentPauseDecision':
        return this.session.agentMessage(message);
      case 'setMode':
        return this.modes?.setMode(await this.session.current(), message.mode);
      case 'runPlan': {
        // One click: the plan goes to a turn of the same chat, now in Agent mode.
        const prompt = await this.modes?.handOff(await this.session.current(), message.turnId);
        if (prompt) await this.session.send(prompt);
        return;
      }
      default: {
        const unhandled: never = message;
        void unhandled;
      }
    }
  }

  /** Files dropped from the Explorer or editor tabs: only file-system URIs VS Code knows. */
  private async attachDropped(uris: string[]): Promise<void> {
    if (!this.attachments) return;
    const parsed: vscode.Uri[] = [];
    for (const text of uris) {
      try {
        const uri = vscode.Uri.parse(text.trim(), true);
        if (uri.scheme === 'file' || uri.scheme === 'vscode-remote' || uri.scheme === 'untitled')
          parsed.push(uri);
        else this.logger.warn(`Ignored a dropped item that is not a file (${uri.scheme}:).`);
      } catch {
        this.logger.warn('Ignored a dropped item that is not a URI.');
      }
    }
    await attachUris(this.attachments, parsed);
  }

  /** An image pasted or dropped into the chat (scaled down there already). */
  private async attachImage(name: string, mimeType: string, data: string): Promise<void> {
    if (!this.attachments) return;
    const allowed = await this.attachments.imagesAllowed();
    if (allowed.ok && !data) return;
    if (!allowed.ok) {
      void notify.warn(`Gateway AI: ${allowed.reason}`);
      return;
    }
    try {
      this.attachments.tray.add(
        await this.attachments.tray.storeImage(name, mimeType, base64Bytes(data, 'The pasted image')),
      );
    } catch (error) {
      void notify.warn(`Gateway AI: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async insertCode(code: string): Promise<void> {
    const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    if (!editor) {
      void notify.info('Gateway AI: open an editor to insert the code into.');
      return;
    }
    await editor.edit((edit) => {
      for (const selection of editor.selections) edit.replace(selection, code);
    });
  }

  private async openLink(href: string): Promise<void> {
    if (!isAllowedLink(href)) {
      this.logger.warn(`Blocked a link with a scheme that is not allowed: ${href.slice(0, 40)}`);
      return;
    }
    await vscode.env.openExternal(vscode.Uri.parse(href, true));
  }
}

/** A 402's "Add Credits": the gateway's credits page where we know it, else the credit we know. */
async function addCredits(baseUrl: string): Promise<void> {
  const page = creditsPageUrl(baseUrl);
  if (page) {
    await vscode.env.openExternal(vscode.Uri.parse(page));
    return;
  }
  void notify.info("Gateway AI: add credits on your gateway's website; its credits page is not known here.");
  await vscode.commands.executeCommand(Command.showCost);
}
