/**
 * The file tools' side of "files that run code later" (src/sandbox/code_paths.ts):
 * writing one inside the workspace asks, even where edits are allowed, so a
 * person sees the diff of an editor task, an `.envrc` or a CI workflow before
 * it lands. A rule that names the path — `--allow 'edit(.envrc)'`, an "always"
 * answer, `"edit": {".github/workflows/*": "allow"}` — approves it; a rule for
 * every path (`edit: allow`, `*`) does not.
 */
import * as path from "../lib/path.ts";
import { codePathPatterns, matchingCodePath } from "../sandbox/code_paths.ts";
import { isWithin, realpathLenient } from "../sandbox/paths.ts";
import type { Check } from "./decision.ts";
import type { Rule } from "./rules.ts";

/** A rule someone wrote for particular paths, not the built-in default nor a bare wildcard. */
function namesPaths(rule: Rule | undefined): boolean {
  return rule !== undefined && rule.layer !== "defaults" && !/^[*?/]*$/.test(rule.pattern);
}

/**
 * The check a write to `real` needs when it is a file that runs code later,
 * or null. `editCheck` judges the path as the rule table sees it (relative
 * to the workspace or the `--add-dir` holding it).
 */
export function codePathCheck(
  real: string,
  roots: string[],
  protect: readonly string[] | undefined,
  editCheck: (subject: string) => Check,
): Check | null {
  const root = roots.map((candidate) => realpathLenient(path.resolve(candidate)))
    .find((candidate) => isWithin(candidate, real));
  if (!root) return null;
  const relative = path.relative(root, real).split(path.sep).join("/");
  const pattern = matchingCodePath(relative, codePathPatterns(protect));
  if (!pattern) return null;
  const check = editCheck(relative);
  if (check.action !== "allow" || namesPaths(check.rule)) return check;
  return {
    key: "edit",
    subject: relative,
    action: "ask",
    reason:
      `${relative} runs code on your machine later (it matches "${pattern}" among the files skiff protects); writing it needs your approval`,
  };
}
