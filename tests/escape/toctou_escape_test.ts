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
import {
  ConfinedWriterClient,
  startConfinedWriter,
} from "../../src/sandbox/writer/confined_writer.ts";
import { landlockAbi } from "../../src/sandbox/landlock/landlock.ts";
import { routeFileWrites } from "../../src/tools/files/_file_io.ts";
import { writeTool } from "../../src/tools/files/write.ts";
import type { WorkerJob } from "../sandbox/fixtures/tool_worker.ts";
import { makeLayout, snapshot, toolContext } from "./_harness.ts";

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

const ABI = landlockAbi();
if (typeof ABI === "string") {
  console.warn(
    `\n!!! ESCAPE SUITE: Landlock is unavailable here (${ABI}), so the symlink-flipper ` +
      "test is SKIPPED: the file tools' writes are not kernel-confined on this machine. !!!\n",
  );
}

/**
 * 400 writes into `d/` while another process swaps `d` with a link to the
 * outside as fast as it can. Returns how many files landed outside.
 */
async function flipperRace(confined: boolean): Promise<{ outside: number; written: number }> {
  const layout = makeLayout();
  const writer = confined ? startConfinedWriter([layout.ws]) : null;
  try {
    if (writer) {
      const confinement = await writer.confinement;
      assertEquals(confinement.kind, "restricted", JSON.stringify(confinement));
      routeFileWrites(new ConfinedWriterClient(writer.link));
    }
    const flipper = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-ffi",
        new URL("./fixtures/folder_flipper.ts", import.meta.url).pathname,
        layout.ws,
        layout.outside,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    while (!(await Deno.lstat(path.join(layout.ws, "d.link")).then(() => true, () => false))) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const ctx = toolContext(layout);
    let written = 0;
    for (let i = 0; i < 400; i++) {
      const input = writeTool.schema.parse({ file_path: `d/f${i}.txt`, content: "planted\n" });
      try {
        await writeTool.execute(input, ctx);
        written++;
      } catch { /* refused: the check or the kernel saw the link */ }
    }
    Deno.writeTextFileSync(`${layout.ws}.stop`, "");
    const flips = new TextDecoder().decode((await flipper.output()).stdout).trim();
    const outside = [...Deno.readDirSync(layout.outside)].filter((entry) =>
      entry.name !== "secret.txt"
    ).length;
    console.log(
      `flipper (${confined ? "confined writer" : "writes on the calling thread"}): ` +
        `${outside} of 400 writes landed outside, ${written} succeeded, ${flips} flips`,
    );
    return { outside, written };
  } finally {
    routeFileWrites(null);
    writer?.close();
    try {
      Deno.removeSync(`${layout.ws}.stop`);
    } catch { /* never made */ }
    layout.cleanup();
  }
}

Deno.test({
  name: "escape: a folder flipped to an outside symlink during 400 writes → nothing lands outside",
  ignore: typeof ABI === "string",
  async fn() {
    const confined = await flipperRace(true);
    assertEquals(confined.outside, 0, "a write followed the swapped link out of the workspace");
    // The race was real: writes went through while the folder was a folder.
    assertEquals(confined.written > 0, true, "no write succeeded at all");
  },
});
