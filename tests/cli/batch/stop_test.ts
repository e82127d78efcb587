/** Ctrl-C in a batch, per task: when a running task stops, and what is recorded as where. */
import { assertEquals } from "../../support/assert.ts";
import { TaskStopper } from "../../../src/cli/batch/stop.ts";
import type { SkiffEvent } from "../../../src/contracts/events.ts";

const envelope = { session_id: "ses_1", timestamp: "2026-01-01T00:00:00.000Z" };
const turn = (n: number) => ({ type: "turn.started", ...envelope, turn: n }) as SkiffEvent;
const started = (id: string, tool: string) =>
  ({ type: "tool.started", ...envelope, turn: 1, call_id: id, tool, input: {} }) as SkiffEvent;
const completed = (id: string, tool: string) =>
  ({
    type: "tool.completed",
    ...envelope,
    turn: 1,
    call_id: id,
    tool,
    ok: true,
    title: tool,
    output: "",
    duration_ms: 1,
  }) as SkiffEvent;

Deno.test("task stopper: the first Ctrl-C waits for every call of the turn, then stops once", () => {
  let aborts = 0;
  const stopper = new TaskStopper();
  stopper.attach(() => aborts++);
  stopper.observe(turn(2));
  stopper.observe(started("a", "bash"));
  stopper.observe(started("b", "read"));
  stopper.stopAfterCurrentCalls();
  assertEquals(aborts, 0);
  stopper.observe(completed("b", "read"));
  assertEquals(aborts, 0, "bash still runs");
  stopper.observe(completed("a", "bash"));
  assertEquals(aborts, 1);
  assertEquals(stopper.where(), "after its bash call ended (turn 2)");
  stopper.stopNow();
  assertEquals(aborts, 1, "stopped once");
});

Deno.test("task stopper: waiting on the model stops at once; a second Ctrl-C stops a call mid-way", () => {
  let aborts = 0;
  const waiting = new TaskStopper();
  waiting.attach(() => aborts++);
  waiting.observe(turn(3));
  waiting.stopAfterCurrentCalls();
  assertEquals([aborts, waiting.where()], [1, "while waiting for the model (turn 3)"]);

  const running = new TaskStopper();
  running.attach(() => aborts++);
  running.observe(turn(1));
  running.observe(started("a", "bash"));
  running.stopAfterCurrentCalls();
  running.stopNow();
  assertEquals([aborts, running.where()], [2, "during bash (turn 1)"]);
});

Deno.test("task stopper: a stop asked before the engine exists applies as it attaches", () => {
  let aborts = 0;
  const stopper = new TaskStopper();
  stopper.stopAfterCurrentCalls();
  stopper.attach(() => aborts++);
  assertEquals([aborts, stopper.where()], [1, "before its first turn"]);
});
