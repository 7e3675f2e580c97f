/** What the simulated models say: recognisable echoes and the special replies of the scenarios. */

export const REASONING_PARTS = [
  'The user wants an echo. ',
  'I will quote the last message ',
  'with a little markdown.',
];

export function echoReply(model: string, lastUserText: string, messageCount: number): string {
  const quoted = lastUserText.replace(/\n/g, '\n> ');
  return [
    `Echo from ${model}: ${lastUserText}`,
    '',
    `This reply comes from the **gateway simulator** ✨. The conversation had ${messageCount} message${messageCount === 1 ? '' : 's'}; the last one was:`,
    '',
    `> ${quoted}`,
    '',
    '- a list item with `inline code`',
    '- 日本語のテキストも大丈夫 🎉',
  ].join('\n');
}

const LONG_SECTIONS = [
  (n: number): string =>
    `## Section ${n}\n\nA paragraph of **markdown** with _emphasis_, \`code\`, a [link](https://example.com/${n}) and some 漢字 and emoji 🚀🌍.\n\n`,
  (n: number): string =>
    `\`\`\`ts\nexport function section${n}(input: number): number {\n  // Doubles the input, then adds the section number.\n  return input * 2 + ${n};\n}\n\`\`\`\n\n`,
  (n: number): string => `1. First point of section ${n}\n2. Second point, with ünïcödé\n3. Third point\n\n`,
  (n: number): string => `| column | value |\n| --- | --- |\n| section | ${n} |\n| bytes | many |\n\n`,
  (n: number): string =>
    `\`\`\`python\ndef section_${n}(values):\n    """Sums the values."""\n    return sum(values) + ${n}\n\`\`\`\n\n`,
];

/** Markdown of at least `bytes` UTF-8 bytes (cut at a line end once long enough). */
export function longReply(model: string, bytes: number): string {
  const parts: string[] = [`# Long reply from ${model}\n\n`];
  let size = Buffer.byteLength(parts[0]);
  for (let n = 1; size < bytes; n++) {
    const part = LONG_SECTIONS[n % LONG_SECTIONS.length](n);
    parts.push(part);
    size += Buffer.byteLength(part);
  }
  return parts.join('');
}

/** A reply long enough to be stopped midway. */
export function slowReply(model: string, lastUserText: string): string {
  const sentences = [`Slow reply from ${model} to: ${lastUserText}`, ''];
  for (let i = 1; i <= 40; i++) sentences.push(`Sentence ${i} of a deliberately slow answer.`);
  return sentences.join('\n');
}

export function xssReply(origin: string): string {
  return [
    'Here is some hostile content, which must be shown as text or dropped:',
    '',
    "<script>alert('xss-script')</script>",
    '',
    '<img src=x onerror="alert(\'xss-img\')">',
    '',
    '<a href="javascript:alert(\'xss-a\')">an HTML link</a>',
    '',
    '[a markdown link](javascript:alert(1))',
    '',
    `![tracking pixel 1](${origin}/img/track-1.png)`,
    '',
    `<img src="${origin}/img/track-2.png">`,
    '',
    'End of the hostile content.',
  ].join('\n');
}

export interface CitationReply {
  text: string;
  annotations: Array<{
    type: 'url_citation';
    url_citation: { url: string; title: string; content: string; start_index: number; end_index: number };
  }>;
}

export function citationReply(model: string): CitationReply {
  const first = 'The gateway simulator is documented [docs]';
  const second = ' and its source is public [source].';
  const text = `Answer from ${model} with web results. ${first}${second}`;
  const cite = (label: string, url: string, title: string): CitationReply['annotations'][number] => {
    const start = text.indexOf(`[${label}]`);
    return {
      type: 'url_citation',
      url_citation: {
        url,
        title,
        content: `About ${title}`,
        start_index: start,
        end_index: start + label.length + 2,
      },
    };
  };
  return {
    text,
    annotations: [
      cite('docs', 'https://example.com/docs', 'Simulator docs'),
      cite('source', 'https://example.org/source', 'Simulator source'),
    ],
  };
}

export interface SimToolCall {
  id: string;
  name: string;
  arguments: string;
}

export const TOOL_CALLS: SimToolCall[] = [
  { id: 'call_sim_weather', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
  { id: 'call_sim_time', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
];

/** What `#sim:call:<name>` passes to each tool it knows; any other tool gets `{}`. */
const SIM_TOOL_ARGUMENTS: Record<string, string> = {
  gateway_generateMedia: '{"prompt":"a lighthouse at dusk, drawn by the agent"}',
};

/** One call of a named tool (`#sim:call:<name>`). */
export function simToolCall(name: string): SimToolCall {
  return { id: `call_sim_${name.replace(/\W+/g, '_')}`, name, arguments: SIM_TOOL_ARGUMENTS[name] ?? '{}' };
}

/** Splits into pieces of about `size` characters without cutting a surrogate pair. */
export function splitText(text: string, size: number): string[] {
  const pieces: string[] = [];
  let current = '';
  let length = 0;
  for (const char of text) {
    current += char;
    length += char.length;
    if (length >= size) {
      pieces.push(current);
      current = '';
      length = 0;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}

/** Rough token count, for usage figures. */
export function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
