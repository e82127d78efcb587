/**
 * The permission judge. Every call, and every access a running call asks
 * for, is judged by one `PermissionGate` (`gate.ts`): the rule table
 * (`rules.ts`, layered by `layers.ts` from `defaults.ts`, the config, the
 * agent, the flags in `flags.ts` and the session's answers in
 * `session_rules.ts`), evaluated by `evaluate.ts` (with `code_path_check.ts`
 * for paths and `url_pattern.ts` for addresses), the task's `owns`
 * (`owns.ts`), and the question of running a command with no OS sandbox.
 * An "ask" goes to the one broker (`broker.ts`: a person, `--yes`, or the
 * headless refusal); "always" answers become rules (`always.ts`) and can be
 * saved for the project (`project_rules.ts`). `hints.ts` writes the
 * `--allow` flag that would have allowed a refused call. `shell/` parses a
 * command line into the commands it runs, for the `bash` rules.
 */
export { PermissionGate, ruleVerdict } from "./gate.ts";
export {
  type ApprovalAnswer,
  type ApprovalBroker,
  type ApprovalRequest,
  HeadlessBroker,
  YesBroker,
} from "./broker.ts";
export type { Action, PermissionConfig, Rule, RuleLayer } from "./rules.ts";
