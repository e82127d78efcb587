/**
 * A symlink swapped after the check (time of check → time of use). The
 * policy approves a write to a workspace file; before the tool runs, its
 * folder is replaced by a symlink to the outside. What holds is the Deno
 * layer: the tool re-resolves the path at execute time and opens the real
 * path, which the Worker may not write. docs/security.md describes the
 * window that remains.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { workerPermissions } from "../../src/sandbox/worker_permissions.ts";
import type { WorkerJob } from "../sandbox/fixtures/tool_worker.ts";
import { makeLayout, snapshot } from "./_harness.ts";

interface Reply {
  stage?: string;
  decision: string;
  ok?: boolean;
  error?: { code: string };
}

Deno.test("escape: symlink swapped between the policy check and the write → not_capable", async () => {
  const layout = makeLayout();
  const dataDir = path.join(layout.root, "data");
  Deno.mkdirSync(dataDir);
  const outsideBefore = snapshot(layout.outside);
  const worker = new Worker(new URL("../sandbox/fixtures/tool_worker.ts", import.meta.url), {
    type: "module",
    deno: {
      permissions: workerPermissions({ mode: "workspace-write", workspace: layout.ws, dataDir }),
    },
  });
  const replies: Reply[] = [];
  const finished = new Promise<void>((resolve, reject) => {
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    worker.onmessage = (message: MessageEvent<Reply>) => {
      replies.push(message.data);
      if (message.data.stage === "declared") {
        // The swap: src/ becomes a link to the outside folder.
        Deno.removeSync(path.join(layout.ws, "src"), { recursive: true });
        Deno.symlinkSync(layout.outside, path.join(layout.ws, "src"));
        worker.postMessage("go");
      } else resolve();
    };
  });
  const job: WorkerJob = {
    workspace: layout.ws,
    dataDir,
    tool: "write",
    input: { file_path: "src/new.txt", content: "planted" },
    pauseAfterDeclare: true,
    policy: "defaults",
  };
  worker.postMessage(job);
  try {
    await finished;
    assertEquals(replies[0].decision, "allow", "the check itself saw an inside path");
    assertEquals([replies[1].ok, replies[1].error?.code], [false, "not_capable"]);
    assertEquals(snapshot(layout.outside), outsideBefore);
  } finally {
    worker.terminate();
    layout.cleanup();
  }
});
