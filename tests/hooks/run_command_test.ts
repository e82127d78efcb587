/**
 * One hook command through a plain launcher (full-access): its JSON input on
 * stdin, a flood of output kept to a bound, and a timeout that stops it.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runHookCommand } from "../../src/hooks/run_command.ts";
import { plainLauncher } from "../../src/sandbox/plain.ts";
import { hookLines } from "../../src/ui/hook_line.ts";

async function run(command: string, timeoutMs = 10_000) {
  const workspace = await Deno.realPath(await Deno.makeTempDir());
  try {
    const launcher = plainLauncher({
      mode: "full-access",
      workspace,
      addDirs: [],
      network: false,
      envNames: [],
    });
    return await runHookCommand({
      launcher,
      command,
      workspace,
      input: JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash" }),
      timeoutMs,
    });
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

Deno.test("a hook reads its JSON on stdin and sees the project folder", async () => {
  const result = await run(`cat; echo; echo "$CLAUDE_PROJECT_DIR" >&2; exit 2`);
  assertEquals(result.code, 2);
  assertStringIncludes(result.stdout, '"tool_name":"Bash"');
  assert(result.stderr.trim().length > 1, result.stderr);
});

Deno.test("a hook that floods its output is kept to a bound", async () => {
  const result = await run("head -c 20000000 /dev/zero | tr '\\0' x");
  assertEquals(result.code, 0);
  assert(result.stdout.length < 40_000, `${result.stdout.length} characters kept`);
  assertStringIncludes(result.stdout, "(cut: about");
});

Deno.test("a hook past its timeout is stopped", async () => {
  const started = Date.now();
  const result = await run("exec sleep 30", 500);
  assertEquals(result.timedOut, true);
  assertEquals(result.code, null);
  assert(Date.now() - started < 5_000);
});

Deno.test("a hook's output reaches the terminal with its control characters shown, not obeyed", () => {
  const { text, failed } = hookLines({
    hook_event: "PostToolUse",
    command: "fmt",
    source: "claude-project",
    ok: false,
    exit_code: 1,
    output: "\x1b[2Jcleared?\rover",
    duration_ms: 3,
  });
  assert(failed);
  assertStringIncludes(text, "failed (exit 1)");
  assert(!text.includes("\x1b") && !text.includes("\r"), text);
  assertStringIncludes(text, "\\x1b[2J");
});
