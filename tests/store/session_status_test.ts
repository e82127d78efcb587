/**
 * A session's status says how its last run ended. Runs stored before a
 * refused call's run was stored as "denied" were stored "completed"; their
 * last `session.completed` event still lists the denials, and the status is
 * read as "denied" from it. A later run that refused nothing is "completed".
 */
import { assertEquals } from "../support/assert.ts";
import { openStore } from "../../src/store/store.ts";
import type { SkiffEvent } from "../../src/contracts/events.ts";

function completed(sessionId: string, denials: unknown[]): SkiffEvent {
  return {
    type: "session.completed",
    session_id: sessionId,
    timestamp: new Date().toISOString(),
    text: "",
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    turns: 1,
    exit_code: denials.length ? 3 : 0,
    denials,
  } as SkiffEvent;
}

Deno.test("session status: an older run stored completed with denials reads as denied", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-store-" });
  const store = openStore(dir);
  try {
    const session = store.createSession({ workspace: "/w", model: "m", agent: "build" });
    store.updateSession(session.id, { status: "completed" });
    const denial = { tool: "bash", patterns: ["rm -rf build"], reason: "asks", allow_with: [] };
    store.appendEvent(completed(session.id, [denial]));
    assertEquals(store.getSession(session.id)?.status, "denied");
    assertEquals(store.listSessions({ workspace: "/w" }).map((s) => s.status), ["denied"]);

    // The next run refused nothing: its own end decides.
    store.appendEvent(completed(session.id, []));
    assertEquals(store.getSession(session.id)?.status, "completed");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
