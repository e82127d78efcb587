/**
 * The spawner: one error for a program that cannot start, an environment
 * given whole or inherited, input written while output is read, and an
 * abort that stops a child's whole process group.
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../support/assert.ts";
import { output, ProgramUnavailable, spawn } from "../../src/lib/spawn.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("spawn: a missing program is ProgramUnavailable, reason missing", () => {
  const error = assertThrows(
    () => spawn("/nonexistent/skiff-program"),
    ProgramUnavailable,
  ) as ProgramUnavailable;
  assertEquals(error.reason, "missing");
  assertEquals(error.program, "/nonexistent/skiff-program");
  assert(error.cause instanceof Deno.errors.NotFound);
});

Deno.test("spawn: a working folder that is not there is missing too, and Deno's message names cwd", async () => {
  const error = await assertRejects(
    () => output("sh", { args: ["-c", "true"], cwd: "/nonexistent/skiff-folder" }),
    ProgramUnavailable,
  ) as ProgramUnavailable;
  assertEquals(error.reason, "missing");
  assert(/\bcwd\b/.test(error.cause.message), error.cause.message);
});

Deno.test({
  name: "spawn: a program this process may not start is ProgramUnavailable, reason not-permitted",
  permissions: { run: ["true"] },
  fn() {
    const error = assertThrows(
      () => spawn("sh", { args: ["-c", "true"] }),
      ProgramUnavailable,
    ) as ProgramUnavailable;
    assertEquals(error.reason, "not-permitted");
  },
});

Deno.test("output: a given environment is the child's whole environment", async () => {
  const result = await output("/bin/sh", {
    args: ["-c", 'printf "%s|%s" "$ONLY" "${HOME-unset}"'],
    env: { ONLY: "this" },
  });
  assert(result.success);
  assertEquals(text(result.stdout), "this|unset");
});

Deno.test("output: without an environment the child inherits this process's", async () => {
  const result = await output("sh", { args: ["-c", 'printf "%s" "$PATH"'] });
  assertEquals(text(result.stdout), Deno.env.get("PATH") ?? "");
});

Deno.test("output: input larger than a pipe is written while the output is read", async () => {
  const input = new TextEncoder().encode("x".repeat(1024 * 1024));
  const result = await output("cat", { input });
  assertEquals(result.stdout.length, input.length);
});

Deno.test("output: a failing program answers, and streams not piped read empty", async () => {
  const result = await output("sh", { args: ["-c", "echo out; exit 3"], stdout: "null" });
  assertEquals(result.success, false);
  assertEquals(result.code, 3);
  assertEquals(result.stdout.length, 0);
});

Deno.test("spawn: aborting a new group stops what its leader started", async () => {
  const controller = new AbortController();
  const child = spawn("sh", {
    args: ["-c", 'sleep 30 & echo "$!"; wait'],
    newGroup: true,
    signal: controller.signal,
  });
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  const pid = Number(text(value!).trim());
  controller.abort();
  const status = await child.status;
  await reader.cancel();
  assertEquals(status.signal, "SIGTERM");
  // The leader's background child got the signal too.
  const deadline = Date.now() + 2000;
  let alive = true;
  while (alive && Date.now() < deadline) {
    try {
      Deno.kill(pid, "SIGCONT");
      const state = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]?.[0];
      alive = state !== "Z";
    } catch {
      alive = false;
    }
    if (alive) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert(!alive, `sleep ${pid} outlived its group`);
});
