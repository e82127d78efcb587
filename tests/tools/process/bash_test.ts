/**
 * bash end to end with real processes: merged output and exit code, a
 * timeout or a cancel that leaves no process of the group behind, output
 * spilled to a file when huge, processes a command leaves behind stopped,
 * the environment allowlist, cwd containment and what declare reports.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { bashTool } from "../../../src/tools/process/bash.ts";
import { processWorkspace, survivors, uniqueSleep } from "../_processes.ts";
import { makeContext } from "../_context.ts";

Deno.test("stdout and stderr arrive merged in order, with the exit code", async () => {
  await using ws = await processWorkspace();
  const result = await ws.run(bashTool, {
    command: "echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three; exit 3",
  });
  assertEquals(result.output, "one\ntwo\nthree\nexit code: 3");
  assertEquals(result.metadata?.exitCode, 3);
});

Deno.test("stdout and stderr keep the order they were written in, with no pause between", async () => {
  await using ws = await processWorkspace();
  const result = await ws.run(bashTool, {
    command: "for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done; ls /nonexistent-skiff",
  });
  const lines = result.output.split("\n");
  assertEquals(
    lines.slice(0, 10),
    ["out1", "err1", "out2", "err2", "out3", "err3", "out4", "err4", "out5", "err5"],
  );
  assertStringIncludes(lines[10], "nonexistent-skiff");
});

Deno.test("the shell's messages name the command's own line numbers", async () => {
  await using ws = await processWorkspace();
  const result = await ws.run(bashTool, { command: "true\nno-such-command-skiff" });
  assertStringIncludes(result.output, "2: no-such-command-skiff");
});

Deno.test("a command with no output says so", async () => {
  await using ws = await processWorkspace();
  const result = await ws.run(bashTool, { command: "true" });
  assertEquals(result.output, "(no output)\nexit code: 0");
});

Deno.test("a timeout kills the whole process group: sleep 100 & sleep 100 leaves nothing", async () => {
  await using ws = await processWorkspace();
  const marker = uniqueSleep();
  const started = Date.now();
  const error = await ws.fail(bashTool, {
    command: `echo before; sh -c 'sleep ${marker} & sleep ${marker}'`,
    timeout_ms: 400,
  });
  assertEquals(error.code, "timeout");
  assertStringIncludes(error.message, "before");
  assert(Date.now() - started < 5_000, "the timeout took far too long");
  assertEquals(error.metadata?.timedOut, true);
  assertEquals(await survivors(marker), "", "a process of the group survived the timeout");
});

Deno.test("a process that ignores SIGTERM is killed after the grace period", async () => {
  await using ws = await processWorkspace();
  const marker = uniqueSleep();
  const error = await ws.fail(bashTool, {
    command: `trap '' TERM; sh -c "trap '' TERM; sleep ${marker}"`,
    timeout_ms: 300,
  });
  assertEquals(error.code, "timeout");
  assertEquals(await survivors(marker), "");
});

Deno.test("cancelling through the context signal stops the group", async () => {
  await using ws = await processWorkspace();
  const marker = uniqueSleep();
  const controller = new AbortController();
  ws.ctx.signal = controller.signal;
  setTimeout(() => controller.abort(), 300);
  const error = await ws.fail(bashTool, { command: `echo go; sleep ${marker} & sleep ${marker}` });
  assertEquals(error.code, "failed");
  assertEquals(error.metadata?.cancelled, true);
  assertStringIncludes(error.message, "go");
  assertEquals(await survivors(marker), "");
});

Deno.test("processes left running after the shell exits are stopped, not waited for", async () => {
  await using ws = await processWorkspace();
  const marker = uniqueSleep();
  const started = Date.now();
  const result = await ws.run(bashTool, { command: `sleep ${marker} & echo done` });
  assert(Date.now() - started < 5_000);
  assertStringIncludes(result.output, "done\n");
  assertStringIncludes(result.output, "background: true");
  assertStringIncludes(result.output, "exit code: 0");
  assertEquals(await survivors(marker), "");
  // Output redirected away holds no pipe open; it is found through its group all the same.
  const quiet = await ws.run(bashTool, { command: `nohup sleep ${marker} > /dev/null 2>&1 &` });
  assertEquals(quiet.metadata?.strayProcessesStopped, true);
  assertEquals(await survivors(marker), "");
  const clean = await ws.run(bashTool, { command: "echo plain" });
  assertEquals(clean.metadata?.strayProcessesStopped, undefined);
});

Deno.test("huge output is cut to head and tail and the whole of it is spilled to a file", async () => {
  await using ws = await processWorkspace();
  const result = await ws.run(bashTool, { command: "seq 1 300000" });
  assert(result.output.length <= 30_000, `output has ${result.output.length} characters`);
  assert(result.output.startsWith("1\n2\n3\n"));
  assert(result.output.endsWith("300000\nexit code: 0"));
  const file = String(result.metadata?.fullOutputPath);
  assertStringIncludes(result.output, `full output: ${file}`);
  const expected = Array.from({ length: 300000 }, (_, i) => `${i + 1}\n`).join("");
  assertEquals(await Deno.readTextFile(file), expected);
});

Deno.test("children get the environment allowlist, never an API key", async () => {
  await using ws = await processWorkspace();
  Deno.env.set("OPENAI_API_KEY", "sk-should-not-leak");
  try {
    const result = await ws.run(bashTool, { command: 'echo "[$OPENAI_API_KEY]" "$HOME"' });
    assertStringIncludes(result.output, "[] ");
    assert(!result.output.includes("sk-should-not-leak"));
  } finally {
    Deno.env.delete("OPENAI_API_KEY");
  }
});

Deno.test("cwd runs inside a workspace folder and refuses one outside", async () => {
  await using ws = await processWorkspace();
  await Deno.mkdir(ws.at("sub"));
  const inside = await ws.run(bashTool, { command: "pwd", cwd: "sub" });
  assertStringIncludes(inside.output, `${ws.root}/sub\n`);
  const outside = await ws.fail(bashTool, { command: "pwd", cwd: "/" });
  assertEquals(outside.code, "bad_input");
  const missing = await ws.fail(bashTool, { command: "pwd", cwd: "nope" });
  assertEquals(missing.code, "not_found");
});

Deno.test("declare names the command and suggests a prefix for always-allow", async () => {
  await using ws = await processWorkspace();
  const access = await bashTool.declare({ command: "git log -n5" }, ws.ctx);
  assertEquals(access.key, "bash");
  assertEquals(access.patterns, ["git log -n5"]);
  assertEquals(access.commands, ["git log -n5"]);
  assertEquals(access.always, ["git log *"]);
});

const bwrapWorks = await new Deno.Command("bwrap", {
  args: ["--ro-bind", "/", "/", "--unshare-pid", "--dev", "/dev", "--proc", "/proc", "true"],
  stdout: "null",
  stderr: "null",
}).output().then((out) => out.success, () => false);
if (!bwrapWorks) {
  console.warn("SKIPPED: bubblewrap does not run here; the sandboxed bash test cannot run.");
}

Deno.test({
  name: "under bubblewrap a timeout also leaves no process behind",
  ignore: !bwrapWorks,
  async fn() {
    await using ws = await processWorkspace();
    const { bwrapLauncher } = await import("../../../src/sandbox/bwrap/bwrap.ts");
    ws.ctx.launcher = bwrapLauncher({
      mode: "workspace-write",
      workspace: ws.root,
      addDirs: [],
      network: false,
      envNames: [],
    });
    const marker = uniqueSleep();
    const ok = await ws.run(bashTool, { command: "echo sandboxed; exit 2" });
    assertEquals(ok.output, "sandboxed\nexit code: 2");
    const error = await ws.fail(bashTool, {
      command: `sh -c 'sleep ${marker} & sleep ${marker}'`,
      timeout_ms: 500,
    });
    assertEquals(error.code, "timeout");
    assertEquals(await survivors(marker), "");
  },
});

Deno.test({
  name: "without permission to run processes the error is not_capable",
  permissions: { read: true, write: true, env: true, run: false },
  async fn() {
    await using ws = await processWorkspace();
    const error = await ws.fail(bashTool, { command: "echo hi" });
    assertEquals(error.code, "not_capable");
  },
});

Deno.test("colour codes are removed and a line redrawn with \\r shows what it ended as", async () => {
  await using ws = await processWorkspace();
  const result = await ws.run(bashTool, {
    command: String.raw`printf '\033[1;31mFAIL\033[0m a.test\n'; ` +
      String.raw`printf 'progress 10%%\rprogress 55%%\rprogress 100%%\n'; ` +
      String.raw`printf 'windows line\r\n'; printf '\033]0;title\007done\n'`,
  });
  assertEquals(
    result.output,
    "FAIL a.test\nprogress 100%\nwindows line\ndone\nexit code: 0",
  );
});

Deno.test("bash prepare: with a session's context it warms the sandbox and the first undo snapshot", () => {
  const warmed: string[] = [];
  const ctx = makeContext("/nowhere");
  ctx.launcher = { ...ctx.launcher, warm: () => void warmed.push("sandbox") };
  ctx.commandUndo = {
    before: () => Promise.resolve(() => Promise.resolve()),
    warm: () => void warmed.push("undo"),
  };
  bashTool.prepare!(ctx);
  assertEquals(warmed, ["sandbox", "undo"]);
  // Without one (a process preparing before any session): the parser alone, nothing to warm.
  bashTool.prepare!();
  assertEquals(warmed, ["sandbox", "undo"]);
});
