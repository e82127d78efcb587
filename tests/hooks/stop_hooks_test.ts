/**
 * Stop hooks that block, end to end through the real CLI with real hook
 * scripts and a scripted model: the block's reason becomes the model's next
 * message and the run goes on; the next Stop says `stop_hook_active: true`;
 * a hook that always blocks is cut off after a bounded number of
 * continuations (a project's hook cannot burn the budget forever);
 * `--max-turns` still holds; a Ctrl-C is never undone by a Stop hook;
 * `continue: false` wins over a block; a batch task takes the same path.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff, type Sandbox, spawnSkiff } from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";
import { until } from "../support/batch_tasks.ts";
import { type Event, hookScript, ofType, runWith, warnings, writeJson } from "./_hook_support.ts";

/** Logs its stdin as one line, then blocks until the agent has written done.txt. */
const UNTIL_DONE = `cat >> stop_inputs.jsonl; echo >> stop_inputs.jsonl
if [ -f done.txt ]; then exit 0; fi
echo "write done.txt before you finish" >&2
exit 2`;

/** Logs its stdin and always blocks, in the JSON form. */
const ALWAYS = `cat >> stop_inputs.jsonl; echo >> stop_inputs.jsonl
echo '{"decision": "block", "reason": "not yet"}'`;

const STOP_CAP = 8;

async function stopInputs(workspace: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path.join(workspace, "stop_inputs.jsonl")).catch(() => "");
  return text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
}

function userMessages(request: Record<string, unknown>): string[] {
  const messages = request.messages as { role: string; content: unknown }[];
  return messages.filter((message) => message.role === "user").map((message) =>
    typeof message.content === "string" ? message.content : JSON.stringify(message.content)
  );
}

async function stopHookConfig(configDir: string, script: string) {
  await writeJson(path.join(configDir, "config.json"), {
    hooks: { Stop: [{ hooks: [{ type: "command", command: script }] }] },
  });
}

/**
 * `skiff run --json go` against `mockUrl`, Ctrl-C pressed once `pressWhen`
 * resolves (a run still going after 60 s is killed); it must exit 130.
 * Its events and how long it took to end after the press.
 */
async function interruptedRun(
  sandbox: Sandbox,
  mockUrl: string,
  pressWhen: Promise<unknown>,
): Promise<{ events: Event[]; waitedMs: number }> {
  const child = spawnSkiff(["run", "--json", "go"], sandbox, {
    OPENAI_BASE_URL: mockUrl,
    SKIFF_MODEL: "mock-model",
  });
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    await pressWhen;
    const pressed = Date.now();
    child.kill("SIGINT");
    const status = await child.status;
    const waitedMs = Date.now() - pressed;
    assertEquals(status.code, 130, await stderr);
    return { events: parseJsonLines(await stdout) as Event[], waitedMs };
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("a Stop hook's block sends the agent back with its reason; the next Stop passes", async () => {
  const sandbox = await makeSandbox();
  try {
    await stopHookConfig(sandbox.configDir, await hookScript(sandbox, "stop.sh", UNTIL_DONE));
    const run = await runWith(sandbox, [
      { text: "all done" },
      {
        toolCalls: [{
          id: "w1",
          name: "write",
          arguments: { file_path: "done.txt", content: "ok\n" },
        }],
      },
      { text: "done.txt is written" },
    ], ["--allow", "edit"]);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(run.requests.length, 3);
    // The model's next message after its first stop is the hook's reason.
    assertEquals(
      userMessages(run.requests[1]).at(-1),
      "Stop hook feedback:\nwrite done.txt before you finish",
    );
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "done.txt")), "ok\n");
    // The hook saw both stops, the second marked as a continuation.
    const inputs = await stopInputs(sandbox.workspace);
    assertEquals(inputs.map((input) => input.stop_hook_active), [false, true]);
    assertEquals(inputs[0].hook_event_name, "Stop");
    assertEquals(inputs[0].cwd, sandbox.workspace);
    // The events show the block, the continuation and the pass.
    const stops = ofType(run.events, "hook.completed").filter((event) =>
      event.hook_event === "Stop"
    );
    assertEquals(stops.map((event) => event.blocked ?? false), [true, false]);
    assertStringIncludes(
      warnings(run.events),
      "a Stop hook sent the agent back to work (1 of at most 8 in a row): write done.txt",
    );
    const completed = ofType(run.events, "session.completed")[0];
    assertEquals(completed.exit_code, 0);
    assertEquals(completed.turns, 3);
    // The continuation is a prompt of the same run: undo takes the whole run back.
    const undone = await runSkiff(["undo"], sandbox);
    assertEquals(undone.code, 0, undone.stderr);
    assertEquals(await Deno.stat(path.join(sandbox.workspace, "done.txt")).catch(() => null), null);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("attacker: a Stop hook that always blocks is cut off after 8 continuations, exit 1", async () => {
  const sandbox = await makeSandbox();
  try {
    // A project's hook, in a trusted project: the most a repository can ask for.
    await hookScript(sandbox, "stop.sh", ALWAYS);
    await writeJson(path.join(sandbox.workspace, ".claude", "settings.json"), {
      hooks: { Stop: [{ hooks: [{ type: "command", command: "./hooks/stop.sh" }] }] },
    });
    const turns: MockTurn[] = Array.from({ length: STOP_CAP + 1 }, (_, index) => ({
      text: `attempt ${index + 1}`,
    }));
    // More answers than the cap allows: a loop without the cap would use them all.
    const run = await runWith(sandbox, [...turns, ...turns], ["--trust-project"]);
    assertEquals(run.code, 1, run.stderr);
    assertEquals(run.requests.length, STOP_CAP + 1);
    const inputs = await stopInputs(sandbox.workspace);
    assertEquals(inputs.length, STOP_CAP + 1);
    assertEquals(inputs.map((input) => input.stop_hook_active), [
      false,
      ...Array(STOP_CAP).fill(true),
    ]);
    const [error] = ofType(run.events, "error");
    assertEquals(error.exit_code, 1);
    assertStringIncludes(
      String(error.message),
      "a Stop hook still asks the run to go on after 8 continuations in a row (not yet)",
    );
    assertEquals(ofType(run.events, "session.completed")[0].exit_code, 1);

    // Control: untrusted, the same project hook never runs and the run ends at once.
    await Deno.remove(path.join(sandbox.workspace, "stop_inputs.jsonl"));
    const untrusted = await runWith(sandbox, turns);
    assertEquals(untrusted.code, 0, untrusted.stderr);
    assertEquals(untrusted.requests.length, 1);
    assertEquals((await stopInputs(sandbox.workspace)).length, 0);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("--max-turns holds across a Stop hook's continuations", async () => {
  const sandbox = await makeSandbox();
  try {
    await stopHookConfig(sandbox.configDir, await hookScript(sandbox, "stop.sh", ALWAYS));
    const turns: MockTurn[] = Array.from({ length: 6 }, (_, index) => ({ text: `try ${index}` }));
    const run = await runWith(sandbox, turns, ["--max-turns", "2"]);
    assertEquals(run.code, 5, run.stderr);
    assertEquals(run.requests.length, 2);
    const [error] = ofType(run.events, "error");
    assertStringIncludes(String(error.message), "stopped after 2 turns (--max-turns 2)");
    assertStringIncludes(warnings(run.events), "but the run had already stopped");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a Ctrl-C during a Stop hook's continuation ends the run; no Stop hook restarts it", async () => {
  const sandbox = await makeSandbox();
  let asked!: () => void;
  const second = new Promise<void>((resolve) => asked = resolve);
  const mock = startMockServer([{ text: "all done" }, { hang: true }], {
    onRequest: () => {
      if (mock.requests.length === 2) asked();
    },
  });
  try {
    await stopHookConfig(sandbox.configDir, await hookScript(sandbox, "stop.sh", ALWAYS));
    const { events } = await interruptedRun(sandbox, mock.url, second);
    assertEquals(mock.requests.length, 2, "no request after the Ctrl-C");
    // The Stop hook ran once, after the first answer; the interrupted turn got none.
    assertEquals((await stopInputs(sandbox.workspace)).length, 1);
    assert(events.some((event) => event.type === "session.completed"));
    assertEquals(ofType(events, "session.completed")[0].exit_code, 130);
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});

Deno.test("a Ctrl-C while a slow Stop hook runs stops the hook and ends the run", async () => {
  const sandbox = await makeSandbox();
  const mock = startMockServer([{ text: "all done" }, { text: "never asked" }]);
  try {
    const slow = await hookScript(
      sandbox,
      "stop.sh",
      `touch stop_started; sleep 30; echo "go on" >&2; exit 2`,
    );
    await stopHookConfig(sandbox.configDir, slow);
    const started = path.join(sandbox.workspace, "stop_started");
    const hookStarted = until(
      () => Deno.stat(started).then(() => true, () => false),
      "the Stop hook to start",
      60_000,
    );
    const { events, waitedMs } = await interruptedRun(sandbox, mock.url, hookStarted);
    assert(waitedMs < 15_000, `the run waited ${waitedMs} ms for the hook after Ctrl-C`);
    assertEquals(mock.requests.length, 1, "the hook's block did not restart the run");
    assertEquals(ofType(events, "session.completed")[0].exit_code, 130);
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});

Deno.test("a Stop hook's continue: false wins over a block: the run ends", async () => {
  const sandbox = await makeSandbox();
  try {
    const ends = await hookScript(
      sandbox,
      "stop.sh",
      `echo '{"decision": "block", "reason": "more", "continue": false, "stopReason": "enough"}'`,
    );
    await stopHookConfig(sandbox.configDir, ends);
    const run = await runWith(sandbox, [{ text: "done" }, { text: "never asked" }]);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(run.requests.length, 1);
    assertStringIncludes(
      String(ofType(run.events, "hook.completed")[0].output),
      '"stopReason": "enough"',
    );
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("skiff batch: a task's Stop hook block sends that task's agent back to work", async () => {
  const sandbox = await makeSandbox();
  const mock = startMockServer([{ text: "first stop" }, { text: "second stop" }]);
  try {
    // Blocks only a first stop, so each task continues once (a task cannot write the workspace).
    const once = await hookScript(
      sandbox,
      "stop.sh",
      `[ "$(jq -r .stop_hook_active)" = true ] && exit 0
echo "check the task once more" >&2; exit 2`,
    );
    await stopHookConfig(sandbox.configDir, once);
    await Deno.mkdir(path.join(sandbox.workspace, "src"));
    await Deno.writeTextFile(path.join(sandbox.workspace, "src", "a.txt"), "a\n");
    const run = await runSkiff(
      ["batch", "--each", "src/*.txt", "--prompt", "look at {file}", "--json"],
      sandbox,
      { env: { OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" } },
    );
    assertEquals(run.code, 0, run.stderr);
    assertEquals(mock.requests.length, 2);
    assertEquals(
      userMessages(mock.requests[1]).at(-1),
      "Stop hook feedback:\ncheck the task once more",
    );
    const stops = parseJsonLines(run.stdout).filter((event) => event.type === "hook.completed");
    assertEquals(stops.map((event) => event.blocked ?? false), [true, false]);
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});
