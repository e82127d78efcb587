/**
 * End-to-end: every "to allow it" hint skiff prints for a refused call is
 * taken at its word. The printed hint is split into arguments by a real
 * shell (`sh -c "printf '%s\0' <hint>"`), added to the same command, and
 * skiff is run again: the call must then be allowed. The hint the model is
 * told (the tool error) must be the same.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  type CliResult,
  MAIN,
  parseJsonLines,
  runSkiff,
  type Sandbox,
  withMockSandbox,
} from "../support/cli.ts";
import type { MockServer, MockToolCall, MockTurn } from "../support/mock_server.ts";
import { ALLOW_WITH } from "../../src/ui/text.ts";

/** The arguments a shell makes of `hint`, exactly as a person pasting it would get. */
async function shellSplit(hint: string): Promise<string[]> {
  const output = await new Deno.Command("sh", {
    args: ["-c", `printf '%s\\0' ${hint}`],
    stdout: "piped",
  }).output();
  assert(output.success, `the shell could not read the hint: ${hint}`);
  return new TextDecoder().decode(output.stdout).split("\0").slice(0, -1);
}

/** Each hint printed in the refused-calls summary on stderr. */
function printedHints(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.includes(ALLOW_WITH))
    .map((line) => line.slice(line.indexOf(ALLOW_WITH) + ALLOW_WITH.length));
}

/** What the model was told by the refused call's tool result. */
function toolResults(mock: MockServer): string[] {
  const messages = mock.requests.flatMap((request) =>
    request.messages as { role: string; content: string }[]
  );
  return messages.filter((message) => message.role === "tool").map((message) => message.content);
}

interface HintCase {
  calls: MockToolCall[];
  /** Flags of the first run (kept in the second). */
  flags?: string[];
  prepare?: (sandbox: Sandbox) => Promise<void>;
}

/**
 * Run `calls` headless (refused), read the one printed hint, run again with
 * it added: returns both runs and the arguments the hint stood for.
 */
async function refuseThenRerun(
  hintCase: HintCase,
  check: (
    first: CliResult,
    second: CliResult,
    args: string[],
    sandbox: Sandbox,
    mock: MockServer,
  ) => Promise<void> | void,
): Promise<void> {
  const script: MockTurn[] = [
    ...hintCase.calls.map((call) => ({ toolCalls: [call] })),
    { text: "done" },
  ];
  await withMockSandbox([...script, ...script], async (sandbox, mock) => {
    await hintCase.prepare?.(sandbox);
    const flags = hintCase.flags ?? [];
    const first = await runSkiff(["run", ...flags, "go"], sandbox);
    assertEquals(first.code, 3, first.stderr);
    const hints = printedHints(first.stderr);
    assertEquals(hints.length, 1, first.stderr);
    const args = await shellSplit(hints[0]);
    // The model was given the same hint.
    assert(
      toolResults(mock).some((content) => content.includes(`rerunning with ${hints[0]}`)),
      `the model was not told: ${hints[0]}\n${toolResults(mock).join("\n")}`,
    );
    const second = await runSkiff(["run", "--json", ...flags, ...args, "go"], sandbox);
    assertEquals(second.code, 0, `${hints[0]}\n${second.stderr}`);
    const completed = parseJsonLines(second.stdout).at(-1)!;
    assertEquals(completed.denials, [], `still refused with ${hints[0]}`);
    await check(first, second, args, sandbox, mock);
  });
}

const bash = (command: string): MockToolCall => ({ name: "bash", arguments: { command } });

function completedCalls(result: CliResult): Record<string, unknown>[] {
  return parseJsonLines(result.stdout).filter((event) => event.type === "tool.completed");
}

Deno.test("hint: a compound command gets a rule per piece, and it works", async () => {
  await refuseThenRerun({
    calls: [bash("rm -rf build && echo cleaned")],
    prepare: (sandbox) => Deno.mkdir(path.join(sandbox.workspace, "build")),
  }, async (first, _second, args, sandbox) => {
    assert(!first.stderr.includes("bash(rm -rf build && echo cleaned)"), first.stderr);
    // A destructive piece is named exactly, never widened to `rm *`.
    assertEquals(args, ["--allow", "bash(rm -rf build)", "--allow", "bash(echo cleaned *)"]);
    const left = await Deno.stat(path.join(sandbox.workspace, "build")).then(
      () => true,
      () => false,
    );
    assertEquals(left, false, "the rerun removed build");
  });
});

Deno.test("hint: sh -c 'exit 7' is quoted so a shell reads it back, and it works", async () => {
  await refuseThenRerun({ calls: [bash("sh -c 'exit 7'")] }, (_first, second, args) => {
    assertEquals(args, ["--allow", "bash(sh *)", "--allow", "bash(exit *)"]);
    assertEquals((completedCalls(second)[0].metadata as { exitCode: number }).exitCode, 7);
  });
});

Deno.test("hint: a folder outside the workspace whose name has a quote and a space", async () => {
  await refuseThenRerun({
    calls: [{ name: "read", arguments: { file_path: "../it's here/notes.txt" } }],
    prepare: async (sandbox) => {
      await Deno.mkdir(path.join(sandbox.root, "it's here"));
      await Deno.writeTextFile(path.join(sandbox.root, "it's here", "notes.txt"), "outside\n");
    },
  }, (first, second, args, sandbox) => {
    assertStringIncludes(first.stderr, `'\\''`);
    // The engine may read no folder outside the workspace and --add-dir, whatever the rules say.
    assertEquals(args, ["--add-dir", `${sandbox.root}/it's here`]);
    assertEquals(completedCalls(second)[0].ok, true, JSON.stringify(completedCalls(second)[0]));
  });
});

Deno.test("hint: a call refused by the repeated-call guard names doom_loop, and it works", async () => {
  const read = { name: "read", arguments: { file_path: "a.txt" } };
  await refuseThenRerun({
    calls: [read, read, read],
    prepare: (sandbox) => Deno.writeTextFile(path.join(sandbox.workspace, "a.txt"), "a\n"),
  }, (first, second, args) => {
    assertStringIncludes(first.stderr, "three times in a row");
    assertEquals(args, ["--allow", "doom_loop(read)"]);
    assertEquals(completedCalls(second).map((event) => event.ok), [true, true, true]);
  });
});

const UNSURE = "i=0; while [ $i -lt 2 ]; do i=$((i+1)); done; echo $i";

Deno.test("hint: a line the parser is unsure of gets bash(*) when no narrower rule asks", async () => {
  await refuseThenRerun({ calls: [bash(UNSURE)] }, (_first, second, args) => {
    assertEquals(args, ["--allow", "bash"]);
    assertStringIncludes(String(completedCalls(second)[0].output), "2");
  });
});

Deno.test("hint: a line the parser is unsure of gets --yes when a narrower bash rule asks", async () => {
  await refuseThenRerun({
    calls: [bash(UNSURE)],
    flags: ["--ask", "bash(curl *)"],
  }, (first, _second, args) => {
    assert(!first.stderr.includes("--allow"), first.stderr);
    assertEquals(args, ["--yes"]);
  });
});

Deno.test("hint: an edit refused by a read-only sandbox names --sandbox workspace-write", async () => {
  await refuseThenRerun({
    calls: [{ name: "write", arguments: { file_path: "made.txt", content: "x\n" } }],
    flags: ["--sandbox", "read-only"],
  }, async (_first, _second, args, sandbox) => {
    assertEquals(args, ["--sandbox", "workspace-write"]);
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "made.txt")), "x\n");
  });
});

Deno.test("hint: a deny rule gets no flag at all, in the summary and for the model", async () => {
  await withMockSandbox([{ toolCalls: [bash("rm -rf build")] }, { text: "done" }], async (
    sandbox,
    mock,
  ) => {
    const result = await runSkiff(["run", "--deny", "bash(rm *)", "go"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    assertEquals(printedHints(result.stderr), []);
    assertStringIncludes(result.stderr, "no flag allows it");
    const told = toolResults(mock)[0];
    assertStringIncludes(told, "no flag overrides it");
    assert(!told.includes("--allow") && !told.includes("--yes"), told);
  });
});

/** skiff run as root in a mount namespace where bubblewrap is /bin/false: no sandbox works. */
async function runWithoutSandbox(args: string[], sandbox: Sandbox): Promise<CliResult> {
  // Landlock is the other Linux backend: its exec step is emptied too.
  const landlockStep = new URL("../../src/sandbox/landlock/exec.ts", import.meta.url).pathname;
  const script = 'mount --bind /bin/false "$(command -v bwrap)" && ' +
    `mount --bind /dev/null ${landlockStep} && exec "$@"`;
  const output = await new Deno.Command("unshare", {
    args: [
      "-m",
      "sh",
      "-c",
      script,
      "sh",
      Deno.execPath(),
      "run",
      "--allow-all",
      "--unstable-worker-options",
      "--no-prompt",
      MAIN,
      ...args,
    ],
    cwd: sandbox.workspace,
    env: sandbox.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

const canHideBwrap = Deno.uid() === 0 &&
  new Deno.Command("unshare", { args: ["-m", "true"], stderr: "null" }).outputSync().success;
if (!canHideBwrap) {
  console.warn(
    "SKIPPED hints_test no-sandbox case: needs root and `unshare -m` to hide bubblewrap in a mount namespace",
  );
}

Deno.test({
  name:
    "hint: with no working sandbox, --sandbox full-access (and the rule) is named, and it works",
  ignore: !canHideBwrap,
  fn: async () => {
    const script: MockTurn[] = [{ toolCalls: [bash("echo hi > made.txt")] }, { text: "done" }];
    await withMockSandbox([...script, ...script, ...script], async (sandbox) => {
      // Allowed by a rule, refused for want of a sandbox.
      const allowed = await runWithoutSandbox(["run", "--allow", "bash(echo *)", "go"], sandbox);
      assertEquals(allowed.code, 3, allowed.stderr);
      assertStringIncludes(allowed.stderr, "bubblewrap");
      const [fix] = printedHints(allowed.stderr);
      assertEquals(await shellSplit(fix), ["--sandbox", "full-access"]);
      // Asked by the rules, with no sandbox either: both are named.
      const asked = await runWithoutSandbox(["run", "go"], sandbox);
      assertEquals(asked.code, 3, asked.stderr);
      const args = await shellSplit(printedHints(asked.stderr)[0]);
      assertEquals(args, ["--sandbox", "full-access", "--allow", "bash(echo hi *)"]);
      const rerun = await runWithoutSandbox(["run", ...args, "go"], sandbox);
      assertEquals(rerun.code, 0, rerun.stderr);
      assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "made.txt")), "hi\n");
    });
  },
});
