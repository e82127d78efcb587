/**
 * Command-undo benchmark: builds the shared 15,000-file tree (nested
 * .gitignore files, ignored output; scripts/_bench_tree.ts) and times what `skiff undo`'s snapshot adds to each
 * command (src/undo/command_snapshots.ts): the first command of a
 * workspace (every file hashed once), a first command of a later session
 * (stat cache copied), then commands that change nothing and one that writes
 * a file. Medians of several rounds. Run alone with
 * `deno run --allow-all scripts/bench_command_undo.ts`.
 */
import * as path from "node:path";
import { CommandSnapshots } from "../src/undo/command_snapshots.ts";
import { buildTree } from "./_bench_tree.ts";

const PACKAGES = 15;
const ROUNDS = 7;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];

const root = await Deno.makeTempDir({ prefix: "skiff-bench-undo-" });
try {
  const workspace = path.join(root, "ws");
  const dataDir = path.join(root, "data");
  Deno.mkdirSync(workspace);
  const files = buildTree(workspace, PACKAGES);
  let recorded = 0;
  const snapshots = (sessionId: string) =>
    new CommandSnapshots({
      workspace,
      dataDir,
      sessionId,
      record: (changes) => (recorded += changes.length),
      warn: (message) => console.error(`warning: ${message}`),
    });
  const command = async (undo: CommandSnapshots, change?: () => void) => {
    const after = await undo.before();
    change?.();
    await after();
  };
  const first = await timed(() => command(snapshots("ses_first")));
  const laterSession = await timed(() => command(snapshots("ses_second")));
  const undo = snapshots("ses_third");
  await command(undo);
  const unchanged: number[] = [];
  const writing: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    unchanged.push(await timed(() => command(undo)));
    writing.push(
      await timed(() =>
        command(
          undo,
          () => Deno.writeTextFileSync(path.join(workspace, "pkg0", `new${round}.ts`), "x\n"),
        )
      ),
    );
  }
  console.log(`tree: ${files} files`);
  console.log(`first command in a new workspace: ${first.toFixed(0)} ms`);
  console.log(`first command of a later session: ${laterSession.toFixed(0)} ms`);
  console.log(
    `per command, nothing changed:     ${median(unchanged).toFixed(0)} ms (median of ${ROUNDS})`,
  );
  console.log(
    `per command, one file written:    ${median(writing).toFixed(0)} ms (median of ${ROUNDS})`,
  );
  console.log(`changes recorded: ${recorded}`);
} finally {
  await Deno.remove(root, { recursive: true });
}
