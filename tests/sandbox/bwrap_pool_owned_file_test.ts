/**
 * The session sandbox when a task owns one file (`skiff batch --each`): the
 * launcher then gives the pool that file as its writable root
 * (src/engine/launcher.ts), and the pool must still start, run the command in
 * the task's workspace, let it write the owned file and nothing else. The
 * pool spawned its sandbox with the owned file as working folder, so every
 * command of an `--each` task failed with "cwd is not a directory".
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { bwrapSessionLauncher } from "../../src/sandbox/bwrap/session.ts";
import { sessionSandboxMissing } from "../escape/_pooled_runner.ts";
import { startGroup } from "../../src/tools/process/_process_group.ts";

const needsPool = { ignore: sessionSandboxMissing !== null };

Deno.test(
  { name: "bwrap pool: a task owning one file runs commands that write it alone", ...needsPool },
  async () => {
    const inCleaned = ["/tmp/", "/dev/shm/", "/run/"].some((top) =>
      `${Deno.cwd()}/`.startsWith(top)
    );
    const root = Deno.realPathSync(
      Deno.makeTempDirSync({ dir: inCleaned ? "/var/tmp" : Deno.cwd(), prefix: ".pool-own-" }),
    );
    const owned = path.join(root, "f1.txt");
    Deno.writeTextFileSync(owned, "line 1\n");
    const launcher = bwrapSessionLauncher(
      { mode: "workspace-write", workspace: owned, addDirs: [], network: false, envNames: [] },
      { shell: "/bin/bash" },
    );
    try {
      const after = launcher.guard!.before();
      let output = "";
      const group = await startGroup({
        launcher,
        command: "pwd; echo appended >> f1.txt; echo other > other.txt",
        cwd: root,
        onOutput: (text) => output += text,
      });
      const exit = await group.done;
      after();
      assert(output.startsWith(`${root}\n`), `ran in the workspace: ${output}`);
      assertEquals(Deno.readTextFileSync(owned), "line 1\nappended\n");
      assert(/other\.txt: Read-only file system/.test(output), `other file refused: ${output}`);
      assertEquals(exit.code, 1);
      assert(launcher.pool.availability?.usable, "the session sandbox served the command");
    } finally {
      await launcher.close();
      Deno.removeSync(root, { recursive: true });
    }
  },
);

Deno.test(
  {
    name:
      "bwrap pool: a task owning one file of a workspace under /tmp still sees the rest, read-only",
    ...needsPool,
  },
  async () => {
    // Under /tmp, which the sandbox replaces with its own: only what is bound
    // again is there. The launcher passes the session's workspace as visible.
    const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-own-tmp-" }));
    const owned = path.join(root, "a.txt");
    Deno.writeTextFileSync(owned, "a\n");
    Deno.writeTextFileSync(path.join(root, "b.txt"), "b\n");
    const launcher = bwrapSessionLauncher(
      {
        mode: "workspace-write",
        workspace: owned,
        addDirs: [],
        visible: [root],
        network: false,
        envNames: [],
      },
      { shell: "/bin/bash" },
    );
    try {
      const after = launcher.guard!.before();
      let output = "";
      const group = await startGroup({
        launcher,
        command: "cat b.txt; echo more >> a.txt; echo no >> b.txt",
        cwd: root,
        onOutput: (text) => output += text,
      });
      const exit = await group.done;
      after();
      assert(output.startsWith("b\n"), `the rest of the workspace is visible: ${output}`);
      assert(/b\.txt: Read-only file system/.test(output), `and read-only: ${output}`);
      assertEquals(Deno.readTextFileSync(owned), "a\nmore\n");
      assertEquals(Deno.readTextFileSync(path.join(root, "b.txt")), "b\n");
      assertEquals(exit.code, 1);
    } finally {
      await launcher.close();
      Deno.removeSync(root, { recursive: true });
    }
  },
);
