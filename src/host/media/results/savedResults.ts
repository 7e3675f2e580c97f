/**
 * Which jobs' results were saved into the workspace, kept in the extension's global state (a
 * vscode.Memento is a KeyValueState). The logic is pure and lives in core: one key per job, and
 * a mark is forgotten only for a job known to be removed.
 */
export { SavedResults } from '../../../core/mediaStudio/savedMarkers';
