// Lint rules for the whole repository. Run by `npm run lint` (CI runs it beside `npm test`).
// Type-aware rules are left out on purpose: `tsc --strict` already runs in `npm test`,
// and a type-checked lint would double the suite's time on a 2-core CI machine.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import jsdoc from "eslint-plugin-jsdoc";
import comments from "@eslint-community/eslint-plugin-eslint-comments";

/** The size budgets of docs/CONTRIBUTING.md, counted on prettier-formatted code. */
const BUDGETS = {
  // A warning, not an error: files follow concepts (CONTRIBUTING rule 2), and a hard line limit split them by count.
  "max-lines": ["warn", { max: 600, skipBlankLines: false, skipComments: false }],
  "max-lines-per-function": ["error", { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }],
};

/**
 * An optional property of an interface in a component's args.ts, except the `Resolved...` shapes (defaults already
 * filled in, nothing to state). jsdoc's comment matching ignores a context with a descendant combinator, so the
 * exclusion is written as a :not() on the property itself.
 */
const OPTIONAL_ARG = "TSPropertySignature[optional=true]:not(TSInterfaceDeclaration[id.name=/^Resolved/] *)";

export default tseslint.config(
  { ignores: ["node_modules/**", "bin/**", "out/**", ".bench/**", "tests/golden/**"] },
  {
    // A disable comment must still be needed, and must say why (`-- reason`), or it goes.
    linterOptions: { reportUnusedDisableDirectives: "error" },
    plugins: { "@eslint-community/eslint-comments": comments },
    rules: {
      "@eslint-community/eslint-comments/require-description": ["error", { ignore: [] }],
      "@eslint-community/eslint-comments/no-unlimited-disable": "error",
    },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      ...BUDGETS,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Test bodies are `describe`/`it` callbacks: a suite's callback is a list of cases, not one function,
    // so the per-function budget applies to the cases, not to the suite that holds them.
    files: ["tests/**/*.spec.ts"],
    rules: {
      "max-lines-per-function": "off",
    },
  },
  {
    // Every optional component argument documents its default, where a reader of the Args type looks for it.
    files: ["components/*/args.ts"],
    plugins: { jsdoc },
    rules: {
      // An optional prop with no JSDoc at all, or a JSDoc that names no default: either a block `@default` tag
      // or the inline form this repository writes at the end of the description (kept there as description text).
      "jsdoc/require-jsdoc": ["error", { require: { FunctionDeclaration: false }, contexts: [OPTIONAL_ARG] }],
      "jsdoc/no-restricted-syntax": [
        "error",
        {
          contexts: [
            {
              context: OPTIONAL_ARG,
              comment: "JsdocBlock:not([description=/@default/]):not(:has(JsdocTag[tag=default]))",
              message: "Optional argument without a @default: say what the component uses when it is left out.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: {
        require: "readonly",
        module: "writable",
        process: "readonly",
        console: "readonly",
        __dirname: "readonly",
      },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
