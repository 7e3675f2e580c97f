// ESLint rule `local/separate-type-imports`: one form for type-only imports, a statement of its
// own (`import type { A } from 'x'`), never `type` inside the braces (`import { a, type A }`).
// Autofix: `import d, { a, type A as B } from 'x';` becomes
//   import d, { a } from 'x';
//   import type { A as B } from 'x';

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'suggestion',
    docs: { description: 'Put type-only imports in their own `import type` statement' },
    fixable: 'code',
    messages: { inline: 'Move {{names}} to a separate `import type { … }` statement.' },
    schema: [],
  },
  create(context) {
    const source = context.sourceCode;
    return {
      ImportDeclaration(node) {
        if (node.importKind === 'type') return;
        const typed = node.specifiers.filter((s) => s.type === 'ImportSpecifier' && s.importKind === 'type');
        if (typed.length === 0) return;
        const untyped = node.specifiers.filter((s) => !typed.includes(s));
        const strip = (s) => source.getText(s).replace(/^type\s+/, '');
        const names = typed.map((s) => `'${s.local.name}'`).join(', ');
        const fixable = (node.attributes ?? []).length === 0 && source.getCommentsInside(node).length === 0;
        context.report({
          node,
          messageId: 'inline',
          data: { names },
          fix: fixable
            ? (fixer) => {
                const from = source.getText(node.source);
                const semi = source.getText(node).endsWith(';') ? ';' : '';
                const typeLine = `import type { ${typed.map(strip).join(', ')} } from ${from}${semi}`;
                if (untyped.length === 0) return fixer.replaceText(node, typeLine);
                const def = untyped.find((s) => s.type === 'ImportDefaultSpecifier');
                const named = untyped.filter((s) => s.type === 'ImportSpecifier');
                const clause = [
                  def ? source.getText(def) : '',
                  named.length ? `{ ${named.map((s) => source.getText(s)).join(', ')} }` : '',
                ]
                  .filter(Boolean)
                  .join(', ');
                return fixer.replaceText(node, `import ${clause} from ${from}${semi}\n${typeLine}`);
              }
            : null,
        });
      },
    };
  },
};
