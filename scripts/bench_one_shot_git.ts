/**
 * One-shot `skiff run` against the mock in a git workspace, interleaved with
 * an empty `deno run` of the same flags. The system prompt's git summary runs
 * git contained (the read-only sandbox), which a workspace without git never
 * pays; its phases show where it lands (docs/performance.md).
 * `SKIFF_BENCH_MAIN=<tree>/main.ts` measures another tree.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../tests/support/mock_server.ts";
import { runtimeFlags } from "./compile.ts";
import {
  emptyScript,
  gitWorkspace,
  interleave,
  mockRunEnv,
  phaseLine,
  timePhases,
} from "./bench.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MAIN = Deno.env.get("SKIFF_BENCH_MAIN") ?? path.join(ROOT, "main.ts");

export async function benchOneShotGit(rounds = 9): Promise<string[]> {
  const flags = await runtimeFlags();
  const { dir, workspace } = await gitWorkspace("skiff-bench-git-");
  const empty = await emptyScript(dir);
  const mock = startMockServer(Array.from({ length: rounds + 2 }, () => ({ text: "ok" })));
  const env = mockRunEnv(dir, mock.url);
  try {
    const phases: Record<string, number>[] = [];
    const run = async () => {
      const result = await timePhases(
        ["run", ...flags, MAIN, "run", "--dir", workspace, "hi"],
        env,
      );
      phases.push(result.phases);
      return result.ms;
    };
    const emptyRun = async () => (await timePhases(["run", ...flags, empty], {})).ms;
    const [value, baseline] = await interleave([run, emptyRun], rounds);
    return [
      `one-shot in a git workspace: ${value.toFixed(0)} ms, empty deno run ${
        baseline.toFixed(0)
      } ms: +${(value - baseline).toFixed(0)} ms`,
      phaseLine(phases.slice(1), baseline),
    ];
  } finally {
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  for (const line of await benchOneShotGit()) console.log(line);
}
