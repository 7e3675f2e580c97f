/**
 * Which files inline completions never send: glob patterns over the workspace-relative path
 * (`gateway.inlineCompletions.exclude`, added to DEFAULT_EXCLUDE). A pattern without `/` matches
 * the file name in any folder (`.env*`, `*.pem`); one with `/` matches the whole path (`**` any
 * folders, `*` and `?` within one, `{a,b}` either, `[0-9]`/`[!a]` one character of a class).
 * Matching ignores case: `.ENV` on a case-insensitive disk is the same secret.
 *
 * Patterns come from settings a repository can write, so matching must stay cheap whatever they
 * say: no regular expressions (a backtracking `**a**a…` froze the extension host), but the
 * iterative wildcard algorithm, on characters within a folder name and on folder names for `**`,
 * with each pair of segments matched once. Its cost is bounded by pattern length × path length.
 */

/**
 * Files that may hold secrets, by kind: never sent for inline completions, and never read, listed,
 * searched or changed by the agent's tools. Always applied; `gateway.inlineCompletions.exclude`
 * only adds to them. Each pattern is matched against the folder-relative path and against the
 * file's absolute real path, so a workspace folder that is itself `~/.aws` still finds its
 * `credentials` (the `.aws/credentials` pattern); and a project inside a folder named `secrets`
 * is a folder of secrets as a whole.
 *
 * `test/unit/core/inline/secretFiles.test.ts` holds the names that must and must not match.
 */
export const SECRET_FILES: ReadonlyArray<{ readonly kind: string; readonly patterns: readonly string[] }> = [
  {
    // `.env`, `.env.local`, `prod.env`, `env.production`; not `env.ts` or `environment.ts`.
    kind: 'environment files',
    patterns: [
      '.env*',
      '*.env',
      'env.{prod,production,dev,development,stage,staging,local,test,qa,preview}',
      '.dev.vars*',
      '.secret',
      '.secrets',
    ],
  },
  {
    kind: 'keys and certificates',
    patterns: [
      '*.pem',
      '*.key',
      'id_rsa*',
      'id_ed25519*',
      'id_ecdsa*',
      'id_dsa*',
      '*.p12',
      '*.pfx',
      '*.ppk',
      '*.keystore',
      '*.jks',
      '*.keytab',
      '*.kdbx',
      // Android signing settings name the keystore and hold its passwords.
      'keystore.properties',
      'signing.properties',
      // Armored PGP keys, and the old GnuPG secret keyring.
      '*.asc',
      'secring.gpg',
      '**/.ssh/**',
      '**/.gnupg/**',
    ],
  },
  {
    kind: 'secrets files and folders',
    patterns: [
      '**/secrets/**',
      '*secrets.{json,yaml,yml,toml,ini,env,txt}',
      'secrets.*.{json,yaml,yml}',
      'client_secret*.json',
      '**/config/database.yml',
      'local.settings.json',
      'serviceAccountKey.json',
      '*service-account*.json',
      'credentials.json',
      '.credentials.json',
      'application_default_credentials.json',
      // Google Cloud and Firebase key files as their consoles name them, and OAuth token caches.
      '*-firebase-adminsdk-*.json',
      'key.json',
      'gcp-key.json',
      'token.json',
      // .NET production settings (connection strings); WordPress's database password and salts.
      'appsettings.Production.json',
      'wp-config.php',
      '.htpasswd',
    ],
  },
  {
    // Logins and tokens command-line tools keep in the home folder (and sometimes in a project).
    kind: 'tool logins',
    patterns: [
      '.git-credentials',
      '.netrc',
      '_netrc',
      '.npmrc',
      '.yarnrc',
      '.yarnrc.yml',
      '**/.bundle/config',
      'pip.conf',
      'pip.ini',
      // Composer's tokens (`auth.json` beside composer.json, and in its home folder).
      'auth.json',
      '.pypirc',
      '.pgpass',
      '.my.cnf',
      '.vault-token',
      '.s3cfg',
      '.boto',
      '.dockercfg',
      '.terraformrc',
      'terraform.rc',
      '**/.aws/credentials',
      '**/.aws/config',
      '**/.docker/config.json',
      '**/.kube/config',
      'kubeconfig',
      'kubeconfig.{yaml,yml,json}',
      '*.kubeconfig',
      '**/.config/gh/hosts.yml',
      '**/GitHub CLI/hosts.yml',
      '**/.config/gcloud/**',
      '**/.azure/**',
      '**/.cargo/credentials*',
      '**/.gem/credentials',
      '**/.m2/settings*.xml',
      '**/.gradle/gradle.properties',
    ],
  },
  {
    // MCP server settings often carry an API key in `env` or `headers`.
    kind: 'MCP server settings',
    patterns: ['**/.vscode/mcp.json', '.mcp.json', '**/.cursor/mcp.json', 'claude_desktop_config.json'],
  },
  {
    // Terraform variables and state carry secrets in clear.
    kind: 'infrastructure state',
    patterns: ['*.tfvars', '*.tfvars.json', '*.tfstate', '*.tfstate.backup'],
  },
];

/** Every secrets pattern, in the order of SECRET_FILES. */
export const DEFAULT_EXCLUDE: readonly string[] = SECRET_FILES.flatMap((group) => group.patterns);

export const MAX_PATTERNS = 200;
export const MAX_PATTERN_LENGTH = 500;
/** Alternatives a pattern's `{a,b}` groups may expand to. */
const MAX_ALTERNATIVES = 32;
/** Longer paths are not matched but refused (no real file path is this long). */
export const MAX_PATH_LENGTH = 4096;

/** Matching work done so far (character and segment comparisons), for the tests' bounds. */
export const matchWork = { steps: 0 };

type Token = { kind: 'star' } | { kind: 'char'; char: string } | { kind: 'any' } | ClassToken;
interface ClassToken {
  kind: 'class';
  negated: boolean;
  ranges: Array<[string, string]>;
}
/** A folder-name pattern, or `**`: any number of folders. */
type Segment = { kind: 'globstar' } | { kind: 'name'; tokens: Token[] };

interface Compiled {
  source: string;
  alternatives: Segment[][];
}

/** `{a,b}` groups expanded (nested ones too); undefined when there would be too many. */
export function expandBraces(pattern: string): string[] | undefined {
  const open = pattern.indexOf('{');
  if (open < 0) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '{') depth++;
    else if (char === '}' && --depth === 0) {
      const head = pattern.slice(0, open);
      const tail = expandBraces(pattern.slice(i + 1));
      if (!tail) return undefined;
      if (commas.length === 0) return tail.map((rest) => `${pattern.slice(0, i + 1)}${rest}`);
      const cuts = [open, ...commas, i];
      const out: string[] = [];
      for (let c = 0; c + 1 < cuts.length; c++) {
        const options = expandBraces(pattern.slice(cuts[c] + 1, cuts[c + 1]));
        if (!options) return undefined;
        for (const option of options)
          for (const rest of tail) {
            out.push(head + option + rest);
            if (out.length > MAX_ALTERNATIVES) return undefined;
          }
      }
      return out;
    } else if (char === ',' && depth === 1) commas.push(i);
  }
  // An unclosed `{` is a literal character.
  return [pattern];
}

function nameTokens(segment: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i];
    if (char === '*') {
      // A run of stars within a name is one star.
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === '?') tokens.push({ kind: 'any' });
    else if (char === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) {
        tokens.push({ kind: 'char', char });
        continue;
      }
      let body = segment.slice(i + 1, close);
      const negated = body[0] === '!' || body[0] === '^';
      if (negated) body = body.slice(1);
      const ranges: Array<[string, string]> = [];
      for (let j = 0; j < body.length; j++) {
        if (body[j + 1] === '-' && j + 2 < body.length) {
          ranges.push([body[j], body[j + 2]]);
          j += 2;
        } else ranges.push([body[j], body[j]]);
      }
      tokens.push({ kind: 'class', negated, ranges });
      i = close;
    } else tokens.push({ kind: 'char', char });
  }
  return tokens;
}

function compileOne(pattern: string): Segment[] {
  const whole = pattern.includes('/') ? pattern : `**/${pattern}`;
  const segments: Segment[] = [];
  for (const part of whole.split('/')) {
    if (part === '') continue;
    if (part === '**') {
      if (segments[segments.length - 1]?.kind !== 'globstar') segments.push({ kind: 'globstar' });
    } else segments.push({ kind: 'name', tokens: nameTokens(part) });
  }
  return segments;
}

const compiledCache = new Map<string, Compiled | undefined>();

/** A pattern compiled once, for callers that hold many (a `.gitignore`'s rules). */
export type CompiledGlob = Compiled;

function compile(raw: string): Compiled | undefined {
  if (compiledCache.has(raw)) return compiledCache.get(raw);
  const compiled = compileGlob(raw);
  if (compiledCache.size > 1000) compiledCache.clear();
  compiledCache.set(raw, compiled);
  return compiled;
}

/** The pattern ready to match, or undefined when it is empty, too long or expands too far. */
export function compileGlob(raw: string): CompiledGlob | undefined {
  let compiled: Compiled | undefined;
  const pattern = raw
    .trim()
    .toLowerCase()
    .replace(/\\/g, '/')
    .replace(/^(?:\.\/)+/, '')
    .replace(/^\/+/, '');
  if (pattern !== '' && raw.length <= MAX_PATTERN_LENGTH) {
    const expanded = expandBraces(pattern);
    if (expanded) compiled = { source: raw, alternatives: expanded.map(compileOne) };
  }
  return compiled;
}

/** A path split as the matcher wants it: lower-cased folder names. */
function pathParts(relativePath: string): string[] {
  return relativePath
    .replace(/\\/g, '/')
    .toLowerCase()
    .split('/')
    .filter((part) => part !== '');
}

/** Whether a compiled pattern matches a relative path (`/` separators; not length-checked). */
export function globMatches(glob: CompiledGlob, relativePath: string): boolean {
  const parts = pathParts(relativePath);
  return glob.alternatives.some((segments) => matchPath(segments, parts));
}

function tokenMatches(token: Token, char: string): boolean {
  if (token.kind === 'any') return true;
  if (token.kind === 'char') return token.char === char;
  if (token.kind === 'star') return false;
  const inside = token.ranges.some(([low, high]) => low <= char && char <= high);
  return inside !== token.negated;
}

/**
 * The iterative wildcard algorithm: on a mismatch, go back only to the last star and let it take
 * one more item. Never more than (items + 1) × (pattern + 1) steps.
 */
function wildcard<P, S>(
  pattern: readonly P[],
  subject: readonly S[] | string,
  isStar: (p: P) => boolean,
  matches: (patternIndex: number, index: number) => boolean,
): boolean {
  let p = 0;
  let s = 0;
  let star = -1;
  let mark = 0;
  while (s < subject.length) {
    matchWork.steps++;
    if (p < pattern.length && !isStar(pattern[p]) && matches(p, s)) {
      p++;
      s++;
    } else if (p < pattern.length && isStar(pattern[p])) {
      star = p++;
      mark = s;
    } else if (star >= 0) {
      p = star + 1;
      s = ++mark;
    } else return false;
  }
  while (p < pattern.length && isStar(pattern[p])) p++;
  return p === pattern.length;
}

function matchPath(segments: Segment[], parts: string[]): boolean {
  // Each (pattern segment, folder name) pair is matched at most once.
  const memo = new Int8Array(segments.length * parts.length);
  return wildcard(
    segments,
    parts,
    (segment) => segment.kind === 'globstar',
    (p, index) => {
      const at = p * parts.length + index;
      if (memo[at] === 0) {
        const name = parts[index];
        const segment = segments[p];
        const tokens = segment.kind === 'name' ? segment.tokens : [];
        memo[at] = wildcard(
          tokens,
          name,
          (token) => token.kind === 'star',
          (t, i) => tokenMatches(tokens[t], name[i]),
        )
          ? 1
          : 2;
      }
      return memo[at] === 1;
    },
  );
}

/**
 * The first pattern that matches `relativePath` (`/` separators), or undefined. At most
 * MAX_PATTERNS patterns are read; a path too long to match is refused rather than sent.
 */
export function excludedBy(relativePath: string, patterns: readonly string[]): string | undefined {
  if (relativePath.length > MAX_PATH_LENGTH) return `(a path over ${MAX_PATH_LENGTH} characters)`;
  const parts = pathParts(relativePath);
  for (const raw of patterns.slice(0, MAX_PATTERNS)) {
    if (typeof raw !== 'string') continue;
    const compiled = compile(raw);
    if (compiled?.alternatives.some((segments) => matchPath(segments, parts))) return raw;
  }
  return undefined;
}

/** The patterns in force: the defaults, then the user's valid additions, capped. */
export function excludePatterns(user: readonly unknown[]): string[] {
  const out = [...DEFAULT_EXCLUDE];
  for (const pattern of user) {
    if (out.length >= MAX_PATTERNS) break;
    if (typeof pattern === 'string' && compile(pattern) && !out.includes(pattern)) out.push(pattern);
  }
  return out;
}

/**
 * The first pattern that matches any of `paths` (one file named several ways: relative to its
 * folder as given, relative to its real folder, its absolute real path), or undefined.
 */
export function excludedByAny(paths: readonly string[], patterns: readonly string[]): string | undefined {
  for (const path of paths) {
    const pattern = path ? excludedBy(path, patterns) : undefined;
    if (pattern) return pattern;
  }
  return undefined;
}
