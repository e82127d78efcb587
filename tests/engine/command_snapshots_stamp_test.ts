/**
 * Command undo takes the workspace's tree before and after each command. A
 * tree is written only when the index changed since the last one (its
 * closing hash says so): a command that changed nothing costs one git run
 * per snapshot, and every change is still filed — a same-size rewrite in
 * the same second among them.
 */
import { assertEquals } from "../support/assert.ts";
import { type CommandChange, CommandSnapshots } from "../../src/undo/command_snapshots.ts";

/** A `git` first on PATH that logs its subcommand, then runs the real one. */
function gitShim(root: string): { log: string; restore(): void } {
  const real = new TextDecoder().decode(
    new Deno.Command("sh", { args: ["-c", "command -v git"], stdout: "piped" }).outputSync().stdout,
  ).trim();
  const bin = `${root}/bin`;
  const log = `${root}/git.log`;
  Deno.mkdirSync(bin);
  Deno.writeTextFileSync(
    `${bin}/git`,
    `#!/bin/sh\nfor a; do case $a in -c) skip=1;; *) if [ -n "$skip" ]; then skip=; else echo "$a" >> '${log}'; break; fi;; esac; done\nexec '${real}' "$@"\n`,
    { mode: 0o755 },
  );
  const path = Deno.env.get("PATH") ?? "";
  Deno.env.set("PATH", `${bin}:${path}`);
  return { log, restore: () => Deno.env.set("PATH", path) };
}

/** When the fixture's files were written (see `withFixture`). */
const LONG_AGO = new Date("2020-01-01T00:00:00Z");

/** A workspace with `a.txt`, the git shim, and what snapshot sessions of it file and run. */
interface Fixture {
  workspace: string;
  shim: { log: string; restore(): void };
  /** Writes a file dated `LONG_AGO`. */
  write(name: string, text: string): void;
  recorded: CommandChange[][];
  session(id: string): CommandSnapshots;
  /** The `add` and `write-tree` runs since the last call. */
  subcommands(): string[];
}

async function withFixture(prefix: string, work: (fixture: Fixture) => Promise<void>) {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix }));
  const shim = gitShim(root);
  try {
    const workspace = `${root}/ws`;
    Deno.mkdirSync(workspace);
    // Files written long ago: git re-reads a file written in the same second as
    // its index ("racily clean") and rewrites the index each time, which a run
    // of commands seconds apart leaves behind after one snapshot.
    const write = (name: string, text: string) => {
      Deno.writeTextFileSync(`${workspace}/${name}`, text);
      Deno.utimeSync(`${workspace}/${name}`, LONG_AGO, LONG_AGO);
    };
    write("a.txt", "aaaa\n");
    const recorded: CommandChange[][] = [];
    await work({
      workspace,
      shim,
      write,
      recorded,
      session: (id) =>
        new CommandSnapshots({
          workspace,
          dataDir: `${root}/data`,
          sessionId: id,
          record: (changes) => recorded.push(changes),
          warn: (message) => {
            throw new Error(message);
          },
        }),
      subcommands: () => {
        const lines = Deno.readTextFileSync(shim.log).trim().split("\n");
        Deno.writeTextFileSync(shim.log, "");
        return lines.filter((line) => line === "add" || line === "write-tree");
      },
    });
  } finally {
    shim.restore();
    Deno.removeSync(root, { recursive: true });
  }
}

Deno.test("command snapshots: a tree is written only when the index changed, and every change is filed", async () => {
  await withFixture(
    "skiff-snap-stamp-",
    async ({ workspace, write, recorded, session, subcommands }) => {
      const snapshots = session("ses_stamp");
      const command = async (change?: () => void) => {
        const after = await snapshots.before();
        change?.();
        await after();
      };

      await command();
      assertEquals(subcommands(), ["add", "write-tree", "add"], "first command, nothing changed");
      await command();
      assertEquals(subcommands(), ["add", "add"], "nothing changed: no tree written");
      // Same size: the modification time tells.
      await command(() => Deno.writeTextFileSync(`${workspace}/a.txt`, "bbbb\n"));
      assertEquals(subcommands(), ["add", "add", "write-tree"]);
      assertEquals(recorded.length, 1);
      assertEquals(recorded[0].map((change) => change.path), [`${workspace}/a.txt`]);
      assertEquals(new TextDecoder().decode(recorded[0][0].before!), "aaaa\n");
      // A change between commands is the next command's starting point, not its change.
      write("b.txt", "mine\n");
      Deno.utimeSync(`${workspace}/a.txt`, LONG_AGO, LONG_AGO); // Out of the racy second, as above.
      await command();
      assertEquals(subcommands(), ["add", "write-tree", "add"]);
      await command();
      assertEquals(subcommands(), ["add", "add"]);
      assertEquals(recorded.length, 1);
      await command(() => Deno.removeSync(`${workspace}/b.txt`));
      assertEquals(recorded.length, 2);
      assertEquals(recorded[1].map((change) => change.path), [`${workspace}/b.txt`]);
    },
  );
});

Deno.test("command snapshots: warm() takes the first tree ahead; a command coming as it is taken uses it, a later one reads the workspace again", async () => {
  await withFixture(
    "skiff-snap-warm-",
    async ({ workspace, shim, write, recorded, session, subcommands }) => {
      // Warmed as the call is admitted, its command comes at once: the tree being taken is its own.
      const first = session("ses_warm_1");
      void first.warm();
      void first.warm(); // Asked again (the model began the call, then it was admitted): once.
      const after = await first.before();
      assertEquals(subcommands(), ["add", "write-tree"], "the warm tree alone");
      Deno.writeTextFileSync(`${workspace}/a.txt`, "changed\n");
      await after();
      assertEquals(recorded.length, 1);
      assertEquals(recorded[0].map((change) => change.path), [`${workspace}/a.txt`]);
      assertEquals(new TextDecoder().decode(recorded[0][0].before!), "aaaa\n");
      // Later commands of the session have nothing to warm: no git runs.
      subcommands();
      await first.warm();
      assertEquals(Deno.readTextFileSync(shim.log), "");

      // Warmed long before its command (a person took a while to approve it): what changed
      // meanwhile is the command's starting point, not its change.
      write("a.txt", "aaaa\n");
      const second = session("ses_warm_2");
      await second.warm();
      subcommands();
      write("b.txt", "someone else's\n");
      const secondAfter = await second.before();
      assertEquals(subcommands(), ["add", "write-tree"], "the workspace read again");
      await secondAfter();
      assertEquals(recorded.length, 1, "nothing the command did");
    },
  );
});
