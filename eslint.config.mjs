// Lint rules for the whole repository. Run by `npm test` (script `lint`).
// Type-aware rules are left out on purpose: `tsc --strict` already runs in `npm test`,
// and a type-checked lint would double the suite's time on a 2-core CI machine.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import jsdoc from "eslint-plugin-jsdoc";

/** The size budgets of docs/CONTRIBUTING.md, counted on prettier-formatted code. */
const BUDGETS = {
  "max-lines": ["error", { max: 300, skipBlankLines: false, skipComments: false }],
  "max-lines-per-function": ["error", { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }],
};

export default tseslint.config(
  { ignores: ["node_modules/**", "bin/**", "out/**", ".bench/**", "tests/golden/**"] },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
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
      "jsdoc/no-missing-syntax": [
        "error",
        {
          contexts: [
            {
              context: "TSPropertySignature[optional=true]",
              comment: "JsdocBlock:has(JsdocTag[tag=default])",
              message: "Optional argument without a @default tag: say what the component uses when it is left out.",
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
