/**
 * `skiff batch --each` tasks that run commands, end to end: with the command
 * allowed, each task's bash call appends to its own file in the session
 * sandbox; without it, each task fails with exit 3 and its progress line and
 * report say which call was refused and the flag that allows it, as
 * `skiff run` does.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  parseJsonLines,
  runSkiff,
  type Sandbox,
  spawnSkiff,
  withMockSandbox,
} from "../support/cli.ts";
import { until } from "../support/batch_tasks.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { sessionSandboxMissing } from "../escape/_pooled_runner.ts";

/** Per task: append to its file with bash, then answer. */
function appender(body: Record<string, unknown>): MockTurn {
  const messages = body.messages as { role: string; content: unknown }[];
  const first = messages.find((message) => message.role === "user");
  const file = /append to (\S+)/.exec(String(first?.content))?.[1] ?? "?";
  if (!messages.some((message) => message.role === "tool")) {
    return { toolCalls: [{ name: "bash", arguments: { command: `echo more >> ${file}` } }] };
  }
  return { text: "done" };
}

async function twoFiles(workspace: string): Promise<void> {
  for (const name of ["one", "two"]) {
    await Deno.writeTextFile(path.join(workspace, `${name}.txt`), `${name}\n`);
  }
}

Deno.test(
  {
    name: "batch --each: each task's command writes its own file in the session sandbox",
    ignore: sessionSandboxMissing !== null,
  },
  async () => {
    await withMockSandbox([], async (sandbox) => {
      await twoFiles(sandbox.workspace);
      const result = await runSkiff(
        ["batch", "--each", "*.txt", "--prompt", "append to {file}", "--allow", "bash(echo *)"],
        sandbox,
      );
      assertEquals(result.code, 0, result.stderr);
      for (const name of ["one", "two"]) {
        assertEquals(
          await Deno.readTextFile(path.join(sandbox.workspace, `${name}.txt`)),
          `${name}\nmore\n`,
        );
      }
    }, { respond: appender });
  },
);

Deno.test("batch --each: a task whose command was refused says which and how to allow it", async () => {
  await withMockSandbox([], async (sandbox) => {
    await twoFiles(sandbox.workspace);
    const report = path.join(sandbox.root, "report.md");
    const result = await runSkiff(
      ["batch", "--each", "*.txt", "--prompt", "append to {file}", "--report", report],
      sandbox,
    );
    assertEquals(result.code, 3, result.stderr);
    const line = result.stderr.split("\n").find((text) => text.includes("FAIL (exit 3) one.txt"));
    assert(line, result.stderr);
    assertStringIncludes(line, "bash echo more >> one.txt");
    assertStringIncludes(line, "--allow 'bash(echo more *)'");
    assertStringIncludes(await Deno.readTextFile(report), "--allow 'bash(echo more *)'");
  }, { respond: appender });
});

Deno.test("batch --each with the template as an argument says to put it after --prompt, and that works", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    await twoFiles(sandbox.workspace);
    const wrong = await runSkiff(["batch", "--each", "*.txt", "append to {file}"], sandbox);
    assertEquals(wrong.code, 2, wrong.stderr);
    const hint = "skiff batch --each '*.txt' --prompt 'append to {file}'";
    assertStringIncludes(wrong.stderr, hint);
    // The hint as printed (its words as the shell splits them), with --dry-run.
    const words = ["batch", "--each", "*.txt", "--prompt", "append to {file}", "--dry-run"];
    const right = await runSkiff(words, sandbox);
    assertEquals(right.code, 0, right.stderr);
    assertStringIncludes(right.stderr, "2 task(s) would run");
    assertEquals(mock.requests.length, 0);
  }, { respond: appender });
});

Deno.test("batch --json: batch.completed carries the exit code the process ends with after Ctrl-C", async () => {
  // The model never answers: Ctrl-C finds every task waiting on it and stops them at once.
  await withMockSandbox([], async (sandbox, mock) => {
    await twoFiles(sandbox.workspace);
    const child = spawnSkiff(
      ["batch", "--each", "*.txt", "--prompt", "append to {file}", "--json"],
      sandbox,
    );
    const stdout = new Response(child.stdout).text();
    const stderr = new Response(child.stderr).text();
    await until(() => mock.requests.length === 2, "both tasks asking the model");
    child.kill("SIGINT");
    const { code } = await child.status;
    assertEquals(code, 130, await stderr);
    const end = parseJsonLines(await stdout).find((event) => event.type === "batch.completed");
    assertEquals(end?.exit_code, 130);
  }, { respond: () => ({ text: "never", delayMs: 600_000 }) });
});

Deno.test(
  {
    name: "batch: undoing one task's session puts back only that task's files, not another's",
    ignore: sessionSandboxMissing !== null,
  },
  async () => {
    // Task a's command spans task b's write (each waits for the other's line),
    // so b.txt changes while a's command runs; a's undo must leave it alone.
    const wait = (file: string, word: string) =>
      `for i in $(seq 600); do grep -q ${word} ${file} && break; sleep 0.1; done`;
    const commands: Record<string, string> = {
      "a.txt": `echo start >> a.txt; ${wait("b.txt", "b")}; echo a >> a.txt`,
      "b.txt": `${wait("a.txt", "start")}; echo b >> b.txt`,
    };
    const respond = (body: Record<string, unknown>): MockTurn => {
      const messages = body.messages as { role: string; content: unknown }[];
      const first = messages.find((message) => message.role === "user");
      const file = /change (\S+)/.exec(String(first?.content))?.[1] ?? "?";
      if (messages.some((message) => message.role === "tool")) return { text: "done" };
      return { toolCalls: [{ name: "bash", arguments: { command: commands[file] } }] };
    };
    await withMockSandbox([], async (sandbox) => {
      // Not under /tmp: there a task's commands see only the files it owns.
      const workspace = Deno.realPathSync(
        Deno.makeTempDirSync({ dir: "/var/tmp", prefix: "skiff-batch-undo-" }),
      );
      try {
        await undoOneTask(sandbox, workspace);
      } finally {
        Deno.removeSync(workspace, { recursive: true });
      }
    }, { respond });
  },
);

async function undoOneTask(sandbox: Sandbox, workspace: string): Promise<void> {
  for (const name of ["a.txt", "b.txt"]) {
    await Deno.writeTextFile(path.join(workspace, name), "");
  }
  const result = await runSkiff(
    [
      "batch",
      "--each",
      "*.txt",
      "--prompt",
      "change {file}",
      "-j",
      "2",
      "--allow",
      "bash",
      "--dir",
      workspace,
    ],
    sandbox,
  );
  assertEquals(result.code, 0, result.stderr);
  const session = /\| a\.txt \| succeeded \| 0 \| [^|]+ \| (ses_\w+) \|/.exec(result.stderr)
    ?.[1];
  assert(session, result.stderr);
  const undo = await runSkiff(["undo", "--session", session, "--dir", workspace], sandbox);
  assertEquals(undo.code, 0, undo.stderr);
  assertEquals(
    await Deno.readTextFile(path.join(workspace, "a.txt")),
    "",
    `${undo.stdout}\n${result.stderr}`,
  );
  assertEquals(await Deno.readTextFile(path.join(workspace, "b.txt")), "b\n");
}
