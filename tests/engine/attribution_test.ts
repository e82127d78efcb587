/**
 * Failure attribution: the table itself, its use on stored events that lack
 * the field (inferred), and each layer produced for real by `skiff run`
 * against the mock endpoint, its exit code unchanged.
 */
import { assert, assertEquals } from "../support/assert.ts";
import {
  MAIN,
  makeSandbox,
  parseJsonLines,
  runSkiff,
  spawnSkiff,
  withMockSandbox,
} from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { attributeFailure, attributionsOf } from "../../src/engine/attribution.ts";
import { chooseLauncher } from "../../src/sandbox/choose.ts";
import { makeEvent, type SkiffEvent } from "../../src/contracts/events.ts";

const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

function completedEvent(events: Record<string, unknown>[]): Record<string, unknown> {
  const last = events.at(-1)!;
  assertEquals(last.type, "session.completed");
  return last;
}

Deno.test("attribution: each reason lands in its layer", () => {
  const cases: [Parameters<typeof attributeFailure>[0], string, string][] = [
    [
      { code: "limit", message: "stopped after 2 turns (--max-turns 2)", denials: [] },
      "agent",
      "max_turns",
    ],
    [
      { code: "limit", message: "time limit reached (--max-time)", denials: [] },
      "operator",
      "max_time",
    ],
    [
      { code: "limit", message: "spent $1 (--max-cost or config maxCost)", denials: [] },
      "operator",
      "max_cost",
    ],
    [{ code: "interrupted", message: "interrupted", denials: [] }, "operator", "interrupted"],
    [
      { code: "provider", message: "Cannot reach the model endpoint x", denials: [] },
      "provider",
      "provider_unreachable",
    ],
    [{ code: "internal", message: "boom", denials: [] }, "harness", "internal_error"],
    [
      {
        code: "failed",
        message: "the model ran out of output tokens before answering",
        denials: [],
      },
      "agent",
      "output_tokens_exhausted",
    ],
    [
      { denials: [{ tool: "bash", key: "bash", patterns: ["rm x"], reason: "needs approval" }] },
      "workflow",
      "permission_denied",
    ],
    [{ code: "mystery", denials: [] }, "unknown", "error_mystery"],
  ];
  for (const [facts, layer, reason] of cases) {
    assertEquals(attributeFailure(facts), { layer, reason }, JSON.stringify(facts));
  }
});

Deno.test("attribution: a command refused for want of an OS sandbox is the environment's", () => {
  // The refusal exactly as the sandbox chooser words it when nothing is available.
  const choice = chooseLauncher(
    { mode: "workspace-write", workspace: "/w", addDirs: [] } as unknown as Parameters<
      typeof chooseLauncher
    >[0],
    "linux",
    { bwrap: null, sandboxExec: null } as Parameters<typeof chooseLauncher>[2],
  );
  assertEquals(choice.kind, "refusal");
  if (choice.kind !== "refusal") return;
  const denial = {
    tool: "bash",
    key: "bash",
    patterns: ["ls"],
    reason: choice.message,
    allow_with: ["--sandbox", "full-access"],
  };
  assertEquals(attributeFailure({ denials: [denial] }), {
    layer: "environment",
    reason: "sandbox_unavailable",
  });
});

Deno.test("attribution: stored runs without the field are classified by the same table, marked inferred", () => {
  const at = () => new Date(0);
  const started = makeEvent("session.started", "s", {
    workspace: "/w",
    model: "m",
    agent: "build",
    resumed: false,
  }, at);
  const events: SkiffEvent[] = [
    started,
    makeEvent("error", "s", { code: "limit", message: "(--max-turns 3)", exit_code: 5 }, at),
    makeEvent("session.completed", "s", {
      text: "",
      usage,
      turns: 3,
      exit_code: 5,
      denials: [],
    }, at),
    started,
    makeEvent(
      "session.completed",
      "s",
      { text: "ok", usage, turns: 1, exit_code: 0, denials: [] },
      at,
    ),
    started,
    makeEvent("session.completed", "s", {
      text: "",
      usage,
      turns: 1,
      exit_code: 4,
      denials: [],
      attribution: { layer: "provider", reason: "provider_auth" },
    }, at),
  ];
  assertEquals(attributionsOf(events), [
    { layer: "agent", reason: "max_turns", inferred: true },
    { layer: "provider", reason: "provider_auth", inferred: false },
  ]);
});

Deno.test("attribution e2e: --max-turns is the agent's (exit 5)", async () => {
  const loop: MockTurn[] = Array.from({ length: 3 }, () => ({
    toolCalls: [{ name: "todoread", arguments: {} }],
  }));
  await withMockSandbox(loop, async (sandbox) => {
    const result = await runSkiff(["run", "--json", "--max-turns", "2", "spin"], sandbox);
    assertEquals(result.code, 5, result.stderr);
    assertEquals(completedEvent(parseJsonLines(result.stdout)).attribution, {
      layer: "agent",
      reason: "max_turns",
    });
  });
});

Deno.test("attribution e2e: a success carries none", async () => {
  await withMockSandbox([{ text: "done" }], async (sandbox) => {
    const result = await runSkiff(["run", "--json", "hi"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(completedEvent(parseJsonLines(result.stdout)).attribution, undefined);
  });
});

Deno.test("attribution e2e: a denied command is the workflow's (exit 3)", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }] },
    { text: "could not" },
  ], async (sandbox) => {
    const result = await runSkiff(["run", "--json", "clean"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    assertEquals(completedEvent(parseJsonLines(result.stdout)).attribution, {
      layer: "workflow",
      reason: "permission_denied",
    });
  });
});

Deno.test("attribution e2e: a dead endpoint is the provider's (exit 4)", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const sandbox = await makeSandbox({
    OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
    SKIFF_MODEL: "m",
  });
  try {
    const result = await runSkiff(["run", "--json", "hi"], sandbox);
    assertEquals(result.code, 4, result.stderr);
    assertEquals(completedEvent(parseJsonLines(result.stdout)).attribution, {
      layer: "provider",
      reason: "provider_unreachable",
    });
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("attribution e2e: --max-time against a hanging endpoint is the operator's, exit 5", async () => {
  await withMockSandbox([{ hang: true }], async (sandbox) => {
    const started = Date.now();
    const result = await runSkiff(["run", "--json", "--max-time", "2", "hi"], sandbox);
    assertEquals(result.code, 5, result.stderr);
    assert(Date.now() - started < 30_000, "the process ended soon after the deadline");
    assertEquals(completedEvent(parseJsonLines(result.stdout)).attribution, {
      layer: "operator",
      reason: "max_time",
    });
  });
});

Deno.test("attribution e2e: --max-time during a command that sleeps is the operator's, exit 5", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "bash", arguments: { command: "sleep 120" } }] },
    { text: "slept" },
  ], async (sandbox) => {
    const started = Date.now();
    const result = await runSkiff(
      ["run", "--json", "--allow", "bash(sleep *)", "--max-time", "3", "wait"],
      sandbox,
    );
    assertEquals(result.code, 5, result.stderr);
    assert(Date.now() - started < 60_000, "the sleeping command did not hold the run");
    assertEquals(completedEvent(parseJsonLines(result.stdout)).attribution, {
      layer: "operator",
      reason: "max_time",
    });
  });
});

Deno.test("attribution e2e: Ctrl-C (SIGINT to the process) is the operator's, exit 130", async () => {
  await withMockSandbox([{ hang: true }], async (sandbox) => {
    const child = spawnSkiff(["run", "--json", "hi"], sandbox);
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    // Wait until the model request is under way, then press Ctrl-C.
    while (!seen.includes('"turn.started"')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    child.kill("SIGINT");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    const status = await child.status;
    await child.stderr.cancel();
    assertEquals(status.code, 130);
    assertEquals(completedEvent(parseJsonLines(seen)).attribution, {
      layer: "operator",
      reason: "interrupted",
    });
  });
});

Deno.test("attribution e2e: no working sandbox on the machine is the environment's (exit 3)", async () => {
  const bwrap = "/usr/bin/bwrap";
  const present = await Deno.stat(bwrap).then(() => true, () => false);
  if (!present) {
    console.warn(`!!! SKIPPED: ${bwrap} is not installed, so it cannot be made to fail !!!`);
    return;
  }
  await withMockSandbox([
    { toolCalls: [{ name: "bash", arguments: { command: "ls" } }] },
    { text: "no sandbox" },
  ], async (sandbox) => {
    // skiff runs with bubblewrap's binary replaced by an empty file, and bubblewrap forced.
    const output = await new Deno.Command(bwrap, {
      args: [
        "--dev-bind",
        "/",
        "/",
        "--ro-bind",
        "/dev/null",
        bwrap,
        "--",
        Deno.execPath(),
        "run",
        "--allow-all",
        "--unstable-worker-options",
        "--no-prompt",
        MAIN,
        "run",
        "--json",
        "--allow",
        "bash(ls *)",
        "list the files",
      ],
      cwd: sandbox.workspace,
      env: { ...sandbox.env, SKIFF_SANDBOX_BACKEND: "bwrap" },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assertEquals(output.code, 3, stderr);
    const end = completedEvent(parseJsonLines(new TextDecoder().decode(output.stdout)));
    assertEquals(end.attribution, { layer: "environment", reason: "sandbox_unavailable" });
  });
});
