/**
 * `checkSubject` now looks only at the rules of a layer whose key matches
 * (and compares a pattern without wildcards as text): for a varied table —
 * wildcard keys, URL keys, path keys matched by base name, patterns full of
 * regex characters, several layers with a deny — its answer is the one the
 * whole flattened table gave.
 */
import { assertEquals } from "../support/assert.ts";
import { type Check, checkSubject } from "../../src/permission/evaluate.ts";
import { buildLayers } from "../../src/permission/layers.ts";
import {
  flattenLayer,
  type Rule,
  type RuleLayer,
  wildcardMatch,
} from "../../src/permission/rules.ts";
import { PATH_KEYS } from "../../src/permission/defaults.ts";
import { URL_KEYS, urlPatternMatch } from "../../src/permission/url_pattern.ts";

/** The answer as it was computed before: every rule of every layer, flattened. */
function subjectMatchesBefore(rule: Rule, key: string, subject: string): boolean {
  if (!wildcardRegexMatch(rule.key, key)) return false;
  if (URL_KEYS.has(key)) return urlPatternMatch(rule.pattern, subject);
  if (wildcardRegexMatch(rule.pattern, subject)) return true;
  return PATH_KEYS.has(key) && !rule.pattern.includes("/") &&
    wildcardRegexMatch(rule.pattern, subject.split("/").pop() ?? subject);
}

/** The wildcard matcher as it was: every pattern but `*` through its regex. */
function wildcardRegexMatch(pattern: string, text: string): boolean {
  if (pattern === "*") return true;
  let source = "";
  for (const char of pattern) {
    if (char === "*") source += "[\\s\\S]*";
    else if (char === "?") source += "[\\s\\S]";
    else source += char.replace(/[.+^${}()|[\]\\/-]/g, "\\$&");
  }
  if (pattern.endsWith(" *")) source = source.slice(0, -" [\\s\\S]*".length) + "(?: [\\s\\S]*)?";
  return new RegExp(`^${source}$`).test(text);
}

function deciding(layers: RuleLayer[], key: string, subject: string): Rule | undefined {
  let last: Rule | undefined;
  let deny: Rule | undefined;
  for (const layer of layers) {
    let verdict: Rule | undefined;
    for (const rule of flattenLayer(layer)) {
      if (subjectMatchesBefore(rule, key, subject)) verdict = rule;
    }
    if (!verdict) continue;
    if (verdict.action === "deny" && !deny) deny = verdict;
    last = verdict;
  }
  return deny ?? last;
}

const layers = buildLayers({
  global: {
    bash: { "git *": "allow", "rm -rf *": "deny", "echo (a|b).c": "allow" },
    "github_*": "allow",
    webfetch: { "https://docs.example.com/*": "allow" },
  },
  project: {
    read: { "secret/*": "deny", "*.key": "ask", "notes[1].md": "allow", "a+b?.txt": "deny" },
    "github_delete_*": "deny",
    edit: { "src/*": "allow", "build/out.js": "deny" },
    bash: { "npm test": "allow", "git push *": "ask" },
  },
  agent: { external_directory: { "/tmp/*": "allow" }, "mcp_x": "ask" },
  flags: { name: "flags", permission: { bash: { "git push --force *": "deny" } } },
});

const CASES: [string, string][] = [
  ["read", "src/a.ts"],
  ["read", "secret/x"],
  ["read", "deep/dir/my.key"],
  ["read", "notes[1].md"],
  ["read", "notes1.md"],
  ["read", "a+b?.txt"],
  ["read", "a+bc.txt"],
  ["read", ".env"],
  ["read", "config/.env.local"],
  ["edit", "src/x.ts"],
  ["edit", "build/out.js"],
  ["edit", "other/out.js"],
  ["bash", "git status"],
  ["bash", "git"],
  ["bash", "rm -rf /"],
  ["bash", "npm test"],
  ["bash", "npm test --watch"],
  ["bash", "echo (a|b).c"],
  ["bash", "echo a.c"],
  ["bash", "git push --force origin"],
  ["bash", "git push origin"],
  ["github_create_issue", ""],
  ["github_delete_repo", ""],
  ["mcp_x", ""],
  ["mcp_y", ""],
  ["webfetch", "https://docs.example.com/page"],
  ["webfetch", "https://evil.example.com/"],
  ["external_directory", "/tmp/x"],
  ["external_directory", "/etc"],
  ["doom_loop", "read"],
  ["delete", "a.txt"],
];

Deno.test("checkSubject decides as the whole flattened table did, case by case", () => {
  for (const [key, subject] of CASES) {
    const check: Check = checkSubject(layers, key, subject);
    assertEquals(check.rule, deciding(layers, key, subject), `${key}(${subject})`);
  }
});

Deno.test("a pattern without wildcards matches its own text only, as its regex did", () => {
  for (const pattern of ["npm test", "notes[1].md", "a+b.txt", "(x)", "^$", "a\\b", "a.b"]) {
    assertEquals(wildcardMatch(pattern, pattern), true, pattern);
    assertEquals(wildcardRegexMatch(pattern, pattern), true, pattern);
    for (const other of ["npm  test", "notes1.md", "aab.txt", "x", "", "a\\\\b", "axb", "a.bc"]) {
      if (other !== pattern) {
        assertEquals(wildcardMatch(pattern, other), false, `${pattern} ${other}`);
      }
    }
  }
});
