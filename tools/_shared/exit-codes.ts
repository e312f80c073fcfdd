/**
 * The exit codes of the CLI family (`render`, `verify`, `image:args`): one number per meaning, sysexits.h
 * numbers for the environment's failures, so a script reads every tool the same way. The README's exit
 * tables list `EXIT_CODES_OF` (tests/render/robustness-cli.spec.ts holds them equal).
 */
export const ExitCode = {
  Ok: 0,
  /** render: rendered, but a mandatory policy is violated. */
  PolicyViolation: 1,
  /** verify: a gate did not pass (FAIL, INCONCLUSIVE, SKIPPED). */
  GateFailed: 1,
  /** Invalid config, flags or usage (every problem listed); render: also an output directory another render holds. */
  InvalidConfig: 2,
  /** verify: the cluster or the Frontend is unreachable (the gates that ran are still reported). */
  Unreachable: 3,
  /** A bug in dynamo-efa (sysexits `EX_SOFTWARE`). */
  Internal: 70,
  /** The output cannot be created (sysexits `EX_CANTCREAT`): a file in the way, read-only, no permission. */
  CantCreate: 73,
  /** I/O error writing the output (sysexits `EX_IOERR`): disk full, quota, `EIO`. */
  IoError: 74,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The codes each command returns. */
export const EXIT_CODES_OF = {
  render: [
    ExitCode.Ok,
    ExitCode.PolicyViolation,
    ExitCode.InvalidConfig,
    ExitCode.Internal,
    ExitCode.CantCreate,
    ExitCode.IoError,
  ],
  verify: [
    ExitCode.Ok,
    ExitCode.GateFailed,
    ExitCode.InvalidConfig,
    ExitCode.Unreachable,
    ExitCode.Internal,
    ExitCode.CantCreate,
  ],
  "image:args": [ExitCode.Ok, ExitCode.InvalidConfig],
} as const satisfies Readonly<Record<string, readonly ExitCode[]>>;
