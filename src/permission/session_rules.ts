/**
 * Rules added by "always" answers during one session. They form the last
 * layer, so they beat earlier asks — but, like every layer, never a deny.
 */
import type { Action, RuleLayer } from "./rules.ts";
import { mergeRule } from "./rules.ts";

export class SessionRules {
  readonly #layer: RuleLayer = { name: "session", permission: {} };

  /** Remember `patterns` for `key`. A bare `*` is refused: it would approve everything. */
  add(key: string, patterns: string[], action: Action = "allow"): string[] {
    const added: string[] = [];
    for (const pattern of patterns) {
      if (pattern.trim() === "*" && key === "bash") continue;
      mergeRule(this.#layer.permission, key, pattern, action);
      added.push(pattern);
    }
    return added;
  }

  /** The live layer (the same object, so later answers show up without rebuilding). */
  layer(): RuleLayer {
    return this.#layer;
  }
}
