/**
 * End-to-end escape attempts on the bash rule table through what the shell
 * parser read as plain text: a command inside a `${ }` operand or pattern
 * (``${x:-`cmd`}``, `"${HOME#$(cmd)}"` and `##`, `%`, `%%`, `,,`, `^^`), a
 * backslash before CR LF (a line continuation to tree-sitter, not to bash),
 * a CR before `#` (a comment to tree-sitter, not to bash), and what the
 * fuzzer found (tests/permission/shell_fuzz_test.ts): a line break before
 * `\cmd` and `] }#…` (one word and a comment to tree-sitter), `>& '$(cmd)'`
 * (bash expands the target twice), and the subscript of a variable name
 * that `read`, `printf -v` and `test -v` evaluate. Each hidden command creates a marker
 * file. Under a narrow rule (`git status*`, `npm test*`, the plan agent's
 * `cat *`) and through `skiff mcp serve` none may run; the control runs the
 * same lines under `bash(*)`, where every marker appears.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { mcpServeClient, toolText } from "../support/mcp_serve_client.ts";
import {
  type AttackSandbox,
  bash,
  exists,
  lastToolResults,
  makeAttackSandbox,
  needsBwrap,
  withAttack,
} from "./e2e_support.ts";

/** Lines that start with `program` and hide `touch <marker>`; [marker, line]. */
function attackLines(program: string): [string, string][] {
  const lines: [string, string][] = [
    ["pwned-default", `${program} \${x:-\`touch pwned-default\`}`],
    ["pwned-hash", `${program} "\${HOME#$(touch pwned-hash)}"`],
    ["pwned-hash2", `${program} "\${HOME##$(touch pwned-hash2)}"`],
    ["pwned-percent", `${program} "\${HOME%$(touch pwned-percent)}"`],
    ["pwned-percent2", `${program} "\${HOME%%$(touch pwned-percent2)}"`],
    ["pwned-lower", `${program} "\${HOME,,$(touch pwned-lower)}"`],
    ["pwned-upper", `${program} \${HOME^^\`touch pwned-upper\`}`],
    ["pwned-crlf", `${program} \\\r\nsh -c 'touch pwned-crlf'`],
    ["pwned-cr-comment", `${program} a\r#$(touch pwned-cr-comment)`],
    ["pwned-newline", `${program} a\n\\touch pwned-newline`],
    ["pwned-comment-word", `${program} ] }#$(touch pwned-comment-word)`],
    ["pwned-duplicate", `${program} >& '$(touch pwned-duplicate)'`],
  ];
  return lines;
}

async function markersFound(workspace: string, markers: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const marker of markers) {
    if (await exists(path.join(workspace, marker))) found.push(marker);
  }
  return found;
}

/**
 * Runs the lines through `skiff run` with `flags`; returns the markers that
 * appeared and the tool results (one per line, then the control's).
 */
async function runLines(
  lines: [string, string][],
  flags: string[],
  control: string,
): Promise<{ found: string[]; results: string[]; workspace: string }> {
  let outcome = { found: [] as string[], results: [] as string[], workspace: "" };
  await withAttack([
    ...lines.map(([, line]) => ({ toolCalls: [bash(line)] })),
    { toolCalls: [bash(control)] },
    { text: "done" },
  ], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", ...flags, "look"], sandbox);
    assert(result.code === 0 || result.code === 3, result.stderr);
    const results = lastToolResults(mock).map((message) => message.content);
    assertEquals(results.length, lines.length + 1, results.join("\n---\n"));
    const found = await markersFound(sandbox.workspace, lines.map(([marker]) => marker));
    outcome = { found, results, workspace: sandbox.workspace };
  });
  return outcome;
}

for (
  const [program, rule, control] of [
    ["git status", "bash(git status*)", "git status --short"],
    ["npm test", "bash(npm test*)", "npm test --version"],
  ]
) {
  Deno.test({
    name:
      `e2e: commands hidden in \${ } operands, patterns and CR are refused under --allow '${rule}'`,
    ...needsBwrap,
    fn: async () => {
      const lines = attackLines(program);
      const { found, results } = await runLines(lines, ["--allow", rule], control);
      assertEquals(found, [], "a hidden command ran");
      lines.forEach(([marker], index) => {
        assertStringIncludes(results[index], "Error", marker);
      });
      // The rule still lets the plain command through (its result is no refusal).
      assert(!/denied|not allowed/i.test(results.at(-1)!), results.at(-1));
    },
  });
}

Deno.test({
  name: "e2e (control): under bash(*) the same lines run their hidden commands",
  ...needsBwrap,
  fn: async () => {
    const lines = attackLines("git status");
    const { found } = await runLines(lines, ["--allow", "bash(*)"], "git status");
    assertEquals(found, lines.map(([marker]) => marker));
  },
});

Deno.test({
  name: "e2e: builtins that evaluate a variable name's subscript are refused under their own rules",
  ...needsBwrap,
  fn: async () => {
    const lines: [string, string][] = [
      ["pwned-read", "read -r 'a[$(touch pwned-read)]' <<< x"],
      ["pwned-printf", "printf -v 'a[$(touch pwned-printf)]' x"],
      ["pwned-test", "test -v 'a[$(touch pwned-test)]'"],
    ];
    const rules = ["bash(read *)", "bash(printf *)", "bash(test *)"].flatMap((rule) => [
      "--allow",
      rule,
    ]);
    const { found, results } = await runLines(lines, rules, "printf ok");
    assertEquals(found, [], "a hidden command ran");
    lines.forEach(([marker], index) => assertStringIncludes(results[index], "Error", marker));
    assertStringIncludes(results.at(-1)!, "ok");
    // Control: under bash(*) each builtin runs the command in its subscript.
    const control = await runLines(lines, ["--allow", "bash(*)"], "printf ok");
    assertEquals(control.found, lines.map(([marker]) => marker));
  },
});

Deno.test({
  name: "e2e: the plan agent's cat * rule runs none of the hidden commands, even with --yes",
  ...needsBwrap,
  fn: async () => {
    // The plan agent's sandbox is read-only: a hidden command shows itself by its output
    // (HIDDEN''-RAN prints HIDDEN-RAN, which a refusal quoting the line does not hold).
    const lines: [string, string][] = [
      ["default", "cat ${x:-`echo HIDDEN''-RAN-default`}"],
      ["hash", `cat "\${HOME#$(echo HIDDEN''-RAN-hash >&2)}"`],
      ["upper", "cat ${HOME^^`echo HIDDEN''-RAN-upper >&2`}"],
      ["crlf", "cat \\\r\nsh -c 'echo HIDDEN\"\"-RAN-crlf'"],
      ["newline", "cat a.txt\n\\echo HIDDEN''-RAN-newline"],
    ];
    for (const flags of [[], ["--yes"]]) {
      const { results } = await runLines(lines, ["--agent", "plan", ...flags], "cat a.txt");
      lines.forEach(([name], index) => {
        assert(!results[index].includes("HIDDEN-RAN"), `${name}: ${results[index]}`);
        assertStringIncludes(results[index], "Error", name);
      });
      assertStringIncludes(results.at(-1)!, "alpha");
    }
    // Control: under the build agent and bash(*), the same lines print what they hid.
    const { results } = await runLines(lines, ["--allow", "bash(*)"], "cat a.txt");
    lines.forEach(([name], index) => {
      assertStringIncludes(results[index], `HIDDEN-RAN-${name}`);
    });
  },
});

async function throughMcpServe(
  sandbox: AttackSandbox,
  rule: string,
  lines: [string, string][],
): Promise<string[]> {
  const { client, close } = await mcpServeClient(sandbox, ["--allow", rule]);
  const texts: string[] = [];
  try {
    for (const [, command] of lines) {
      texts.push(toolText(await client.callTool({ name: "bash", arguments: { command } })));
    }
  } finally {
    await close();
  }
  return texts;
}

Deno.test({
  name: "e2e: through skiff mcp serve, hidden commands are refused under bash(git status*)",
  ...needsBwrap,
  fn: async () => {
    const lines = attackLines("git status");
    const markers = lines.map(([marker]) => marker);
    const sandbox = await makeAttackSandbox();
    try {
      const texts = await throughMcpServe(sandbox, "bash(git status*)", lines);
      assertEquals(await markersFound(sandbox.workspace, markers), [], texts.join("\n---\n"));
      texts.forEach((text, index) => assertStringIncludes(text, "denied", lines[index][0]));
      // Control: the same server under bash(*) runs them.
      const control = await throughMcpServe(sandbox, "bash(*)", lines);
      assertEquals(
        await markersFound(sandbox.workspace, markers),
        markers,
        control.join("\n---\n"),
      );
    } finally {
      await sandbox.cleanup();
    }
  },
});
