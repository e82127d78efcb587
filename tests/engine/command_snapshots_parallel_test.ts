/**
 * Command undo for sessions that start at the same moment in one workspace
 * (`skiff batch -j 4` tasks): they share the workspace's snapshot store, and
 * the first command of each made it at once. Two `git init`s in one folder
 * collide ("cannot copy … File exists"), and the session that lost turned
 * its command undo off for good, so its commands' changes could not be undone.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { type CommandChange, CommandSnapshots } from "../../src/undo/command_snapshots.ts";

Deno.test("command snapshots: sessions starting together in one workspace all keep undo", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-snap-parallel-" }));
  try {
    for (let round = 0; round < 3; round++) {
      const workspace = `${root}/ws${round}`;
      Deno.mkdirSync(workspace);
      const names = Array.from({ length: 6 }, (_, at) => `f${at}.txt`);
      for (const name of names) Deno.writeTextFileSync(`${workspace}/${name}`, "");
      const warnings: string[] = [];
      const recorded: CommandChange[][] = names.map(() => []);
      const sessions = names.map((_, at) =>
        new CommandSnapshots({
          workspace,
          dataDir: `${root}/data${round}`,
          sessionId: `ses_${at}`,
          record: (changes) => recorded[at].push(...changes),
          warn: (message) => warnings.push(message),
        })
      );
      const afters = await Promise.all(sessions.map((session) => session.before()));
      // Each session's command writes its own file, one after another.
      for (const [at, after] of afters.entries()) {
        Deno.writeTextFileSync(`${workspace}/${names[at]}`, "changed\n");
        await after();
      }
      assertEquals(warnings, []);
      // Each saw its own file change (and those changed before it in its window).
      for (const [at, changes] of recorded.entries()) {
        assert(changes.some((change) => change.path === `${workspace}/${names[at]}`), names[at]);
      }
    }
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
