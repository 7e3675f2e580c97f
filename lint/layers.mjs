// ESLint rule `local/layers`: which modules a file may depend on, by where it lives.
//
// Every way a module can be reached is checked the same way: `import`, `export … from`,
// `import x = require()`, `require()` and `import()`. Relative specifiers are resolved against
// the importing file (no file system access: the rule works before the target exists), so
// `../../host/x` is caught at any depth. Type-only imports (`import type`, or an import whose
// every specifier is `type`) can be allowed per restriction, since they vanish from the bundle.
//
// Options: { forbid: Restriction[] }, where a Restriction is
//   { paths?: string[]      repo-relative modules, without extension; `dir/**` is the folder and
//                           everything below it, anything else is that one module (`src/api` is
//                           src/api.ts or src/api/index.ts),
//     packages?: string[]   bare package names (a subpath like `undici/types` matches too),
//     nodeBuiltins?: true   `node:*` and the bare names of Node's built-in modules,
//     except?: string[]     repo-relative modules exempt from `paths`, same syntax,
//     allowTypeOnly?: true  type-only imports pass,
//     message: string }     why, shown after the specifier.
// The repository root comes from `settings.layers.root` (set by eslint.config.mjs), else cwd.
import { builtinModules } from 'node:module';
import * as path from 'node:path';

const builtins = new Set(builtinModules.filter((m) => !m.startsWith('_')));

/** `../x.ts`, `../x/index` and `../x` name the same module: compare without extension or index. */
function moduleId(posixPath) {
  return posixPath.replace(/\.(d\.ts|ts|tsx|mts|cts|js|mjs|cjs|json)$/, '').replace(/\/index$/, '');
}

function matches(pattern, id) {
  if (pattern.endsWith('/**')) {
    const dir = pattern.slice(0, -3);
    return id === dir || id.startsWith(`${dir}/`);
  }
  return id === moduleId(pattern);
}

function isTypeOnly(node) {
  switch (node.type) {
    case 'ImportDeclaration':
      return (
        node.importKind === 'type' ||
        (node.specifiers.length > 0 &&
          node.specifiers.every((s) => s.type === 'ImportSpecifier' && s.importKind === 'type'))
      );
    case 'ExportNamedDeclaration':
      return (
        node.exportKind === 'type' ||
        (node.specifiers.length > 0 && node.specifiers.every((s) => s.exportKind === 'type'))
      );
    case 'ExportAllDeclaration':
    case 'TSImportEqualsDeclaration':
      return node.exportKind === 'type' || node.importKind === 'type';
    default:
      return false;
  }
}

/** @type {import('eslint').Rule.RuleModule} */
const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep each source folder to the modules its layer may use' },
    messages: { forbidden: "'{{spec}}' is not allowed here: {{why}}" },
    schema: [
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          forbid: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['message'],
              properties: {
                paths: { type: 'array', items: { type: 'string' } },
                packages: { type: 'array', items: { type: 'string' } },
                nodeBuiltins: { type: 'boolean' },
                except: { type: 'array', items: { type: 'string' } },
                allowTypeOnly: { type: 'boolean' },
                message: { type: 'string' },
              },
            },
          },
        },
      },
    ],
  },
  create(context) {
    const forbid = context.options[0]?.forbid ?? [];
    if (forbid.length === 0) return {};
    const root = context.settings?.layers?.root ?? context.cwd;
    const fileDir = path.posix.dirname(path.relative(root, context.filename).split(path.sep).join('/'));

    function restrictionFor(spec, typeOnly) {
      const relative = spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..';
      const id = relative ? moduleId(path.posix.normalize(path.posix.join(fileDir, spec))) : undefined;
      const pkg = relative
        ? undefined
        : spec.startsWith('@')
          ? spec.split('/').slice(0, 2).join('/')
          : spec.split('/')[0];
      return forbid.find((r) => {
        if (typeOnly && r.allowTypeOnly) return false;
        if (id !== undefined) {
          return (r.paths ?? []).some((p) => matches(p, id)) && !(r.except ?? []).some((p) => matches(p, id));
        }
        if ((r.packages ?? []).includes(pkg)) return true;
        return r.nodeBuiltins === true && (spec.startsWith('node:') || builtins.has(pkg));
      });
    }

    function check(sourceNode, typeOnly) {
      if (!sourceNode || sourceNode.type !== 'Literal' || typeof sourceNode.value !== 'string') return;
      const hit = restrictionFor(sourceNode.value, typeOnly);
      if (hit)
        context.report({
          node: sourceNode,
          messageId: 'forbidden',
          data: { spec: sourceNode.value, why: hit.message },
        });
    }

    return {
      ImportDeclaration: (node) => check(node.source, isTypeOnly(node)),
      ExportNamedDeclaration: (node) => check(node.source, isTypeOnly(node)),
      ExportAllDeclaration: (node) => check(node.source, isTypeOnly(node)),
      TSImportEqualsDeclaration: (node) => {
        if (node.moduleReference.type === 'TSExternalModuleReference')
          check(node.moduleReference.expression, isTypeOnly(node));
      },
      ImportExpression: (node) => check(node.source, false),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require')
          check(node.arguments[0], false);
      },
    };
  },
};

export default layersRule;
