// The project's own ESLint rules, used by eslint.config.mjs as the `local` plugin.
import layers from './layers.mjs';
import separateTypeImports from './separateTypeImports.mjs';

export default {
  meta: { name: 'local' },
  rules: { layers, 'separate-type-imports': separateTypeImports },
};
