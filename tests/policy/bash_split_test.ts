import { assertEquals } from "../support/assert.ts";
import { ensureShellParser } from "../../src/policy/shell_parser.ts";
import { commandsToCheck, shellWords, splitCommand } from "../../src/policy/bash_split.ts";

// The rule table reads commands with the shell parser: load it once for this file.
await ensureShellParser();

Deno.test("splitCommand: separators, substitutions and quotes", () => {
  const table: [string, string[]][] = [
    ["git status && rm -rf x", ["git status", "rm -rf x"]],
    ["a || b; c | d & e", ["a", "b", "c", "d", "e"]],
    ["a\nb", ["a", "b"]],
    ["echo $(curl http://x)", ["echo $(curl http://x)", "curl http://x"]],
    ["echo `whoami`", ["echo `whoami`", "whoami"]],
    ["echo \"a && b\" 'c; d'", ["echo \"a && b\" 'c; d'"]],
    ['echo "$(rm -rf y)"', ['echo "$(rm -rf y)"', "rm -rf y"]],
    ["echo '$(rm -rf y)'", ["echo '$(rm -rf y)'"]],
    ["(cd x && rm y)", ["cd x", "rm y"]],
    ["{ rm a; }", ["rm a"]],
    ["ls 2>&1 | tee out", ["ls 2>&1", "tee out"]],
    ["cmd &> log", ["cmd &> log"]],
    ["echo $((1 + 2))", ["echo $((1 + 2))"]],
    ["diff <(ls a) <(ls b)", ["diff <(ls a) <(ls b)", "ls a", "ls b"]],
    ["if true; then rm x; fi", ["true", "rm x"]],
    ["ls # ; rm -rf y", ["ls"]],
    ["echo a\\;b", ["echo a\\;b"]],
    ["echo $(echo $(id))", ["echo $(echo $(id))", "echo $(id)", "id"]],
  ];
  for (const [command, expected] of table) assertEquals(splitCommand(command), expected, command);
});

Deno.test("commandsToCheck peels wrappers and nested shells", () => {
  assertEquals(commandsToCheck("FOO=1 sudo -n rm -rf x"), ["FOO=1 sudo -n rm -rf x", "rm -rf x"]);
  assertEquals(commandsToCheck("bash -c 'git status; rm -rf z'"), [
    "bash -c 'git status; rm -rf z'",
    "git status",
    "rm -rf z",
  ]);
  assertEquals(commandsToCheck("timeout 5 curl x"), ["timeout 5 curl x", "curl x"]);
  assertEquals(commandsToCheck("eval 'rm -rf q'"), ["eval 'rm -rf q'", "rm -rf q"]);
});

Deno.test("shellWords removes quotes and keeps escaped spaces", () => {
  assertEquals(shellWords(`git commit -m "a b" 'c d' e\\ f`), [
    "git",
    "commit",
    "-m",
    "a b",
    "c d",
    "e f",
  ]);
});
