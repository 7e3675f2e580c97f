/** The prompt Explain Selection sends. Pure. */
export interface Selection {
  code: string;
  languageId: string;
  fileName: string;
}

export function explainPrompt({ code, languageId, fileName }: Selection): string {
  // A fence longer than any backtick run inside the code keeps the code intact.
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [
    `Explain this ${languageId} code from \`${fileName}\`: what it does, how, and anything surprising.`,
    '',
    `${fence}${languageId}`,
    code,
    fence,
  ].join('\n');
}
