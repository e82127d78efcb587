/**
 * Benchmark of the diagnostics after an edit: the time a language server
 * adds to an edit, measured on the session's own path (src/lsp/) with the
 * servers contained by the read-only sandbox as in a session.
 * - TypeScript on a copy of skiff's own tree (src/ and a tsconfig): the
 *   first edit of the language, server start included, then the median of
 *   edits with the server warm (aims: 3 s and 300 ms);
 * - Python on a small project with pyright, Go on a small module with gopls:
 *   the first edit and the warm median;
 * - for each, the first edit of a new session after a read of the file (the
 *   server starts at the read) and a model's turn of `MODEL_TURN_MS`.
 *
 * `deno run --allow-all scripts/bench_lsp.ts` prints the report; the project
 * bench (`deno task bench`) imports `benchLsp`. A missing server is reported
 * as such, not timed.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { SessionDiagnostics } from "../src/lsp/mod.ts";
import { chooseLauncher, probeSandboxesFor } from "../src/sandbox/choose.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WARM_RUNS = 9;
/** Long enough that every figure is a real answer, not the bound. */
const BENCH_WAIT_MS = 60_000;
/** Between the read and the edit: a model's short turn. */
const MODEL_TURN_MS = 3000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function onPath(program: string): Promise<boolean> {
  const found = await new Deno.Command("sh", { args: ["-c", `command -v ${program}`] }).output();
  return found.success;
}

/** The session's read-only launcher for `workspace`, as src/engine/launcher.ts builds it. */
async function readOnlyPrepare(workspace: string) {
  const available = await probeSandboxesFor("auto");
  const choice = chooseLauncher(
    { mode: "read-only", workspace, addDirs: [], network: false, envNames: [] },
    Deno.build.os,
    available,
  );
  if (choice.kind !== "launcher") throw new Error(`no sandbox here: ${choice.message}`);
  return (command: string, cwd: string) => choice.launcher.prepare(command, cwd);
}

/**
 * Times the first diagnosed change of `file` (server start included), then
 * `warmRuns` pairs of warm ones; with `readFirst`, the file is read that many
 * milliseconds before the first change, as a session does.
 */
async function measure(
  workspace: string,
  file: string,
  broken: string,
  { warmRuns = WARM_RUNS, readFirst }: { warmRuns?: number; readFirst?: number } = {},
): Promise<{ first: number; warm: number[]; errors: number }> {
  const diagnostics = new SessionDiagnostics({
    workspace,
    prepare: await readOnlyPrepare(workspace),
    verdict: () => "allow",
    firstWaitMs: BENCH_WAIT_MS,
    waitMs: BENCH_WAIT_MS,
  });
  const real = path.join(workspace, file);
  const original = await Deno.readTextFile(real);
  const bad = original + broken;
  try {
    const change = async (before: string, after: string) => {
      const started = performance.now();
      const report = await diagnostics.diagnose([{ real, display: file, before, after }]);
      const took = performance.now() - started;
      if (!report || report.busy.length || report.notes.length) {
        throw new Error(`no answer for ${file}: ${JSON.stringify(report)}`);
      }
      return { took, errors: report.errors.length };
    };
    if (readFirst !== undefined) {
      diagnostics.opened(real, original);
      await new Promise((resolve) => setTimeout(resolve, readFirst));
    }
    const first = await change(original, bad);
    const warm: number[] = [];
    for (let run = 0; run < warmRuns; run++) {
      warm.push((await change(bad, original)).took);
      warm.push((await change(original, bad)).took);
    }
    return { first: first.took, warm, errors: first.errors };
  } finally {
    await diagnostics.close();
  }
}

/** A copy of skiff's src/ with a tsconfig, in a temporary folder. */
async function skiffTree(dir: string): Promise<string> {
  const workspace = path.join(dir, "skiff");
  await Deno.mkdir(workspace, { recursive: true });
  const copy = await new Deno.Command("cp", {
    args: ["-r", path.join(ROOT, "src"), path.join(workspace, "src")],
  }).output();
  if (!copy.success) throw new Error("could not copy src/");
  await Deno.writeTextFile(
    path.join(workspace, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "esnext",
        module: "esnext",
        moduleResolution: "bundler",
        allowImportingTsExtensions: true,
      },
      include: ["src"],
    }),
  );
  return workspace;
}

function report(
  name: string,
  figures: { first: number; warm: number[]; errors: number },
  afterRead: { first: number; errors: number },
) {
  const warm = median(figures.warm);
  return [
    `${name}: first edit (server start included) ${Math.round(figures.first)} ms ` +
    `(aim ≤ 3000), ${figures.errors} new error found`,
    `${name}: first edit ${MODEL_TURN_MS} ms after a read started the server ` +
    `${Math.round(afterRead.first)} ms, ${afterRead.errors} new error found`,
    `${name}: warm edit, median of ${figures.warm.length} ${Math.round(warm)} ms (aim ≤ 300), ` +
    `slowest ${Math.round(Math.max(...figures.warm))} ms`,
  ];
}

/** The report of one language: its first edit cold, its first after a read, its warm edits. */
async function benchLanguage(
  name: string,
  workspace: string,
  file: string,
  broken: string,
): Promise<string[]> {
  const figures = await measure(workspace, file, broken);
  const afterRead = await measure(workspace, file, broken, {
    warmRuns: 0,
    readFirst: MODEL_TURN_MS,
  });
  return report(name, figures, afterRead);
}

/** A folder `name` in `dir` holding `files` (path → text). */
async function smallProject(
  dir: string,
  name: string,
  files: Record<string, string>,
): Promise<string> {
  const workspace = path.join(dir, name);
  await Deno.mkdir(workspace);
  for (const [file, text] of Object.entries(files)) {
    await Deno.writeTextFile(path.join(workspace, file), text);
  }
  return workspace;
}

/** The report lines. */
export async function benchLsp(): Promise<string[]> {
  const lines: string[] = [];
  const dir = await Deno.makeTempDir({ prefix: "skiff-bench-lsp-" });
  try {
    if (await onPath("typescript-language-server")) {
      lines.push(
        ...await benchLanguage(
          "typescript (skiff's src/)",
          await skiffTree(dir),
          "src/lsp/format.ts",
          'export const benchBroken: number = "not a number";\n',
        ),
      );
    } else lines.push("typescript: typescript-language-server is not on PATH (see .ci/run)");
    if (await onPath("pyright-langserver")) {
      const workspace = await smallProject(dir, "py", {
        "app.py": "def double(n: int) -> int:\n    return n * 2\n\n\nvalue: int = double(2)\n",
      });
      lines.push(
        ...await benchLanguage(
          "python (pyright)",
          workspace,
          "app.py",
          'other: int = double("2")\n',
        ),
      );
    } else lines.push("python: pyright-langserver is not on PATH (see .ci/run)");
    if (await onPath("gopls") && await onPath("go")) {
      const workspace = await smallProject(dir, "go", {
        "go.mod": "module example.com/bench\n\ngo 1.19\n",
        "main.go": "package main\n\nfunc double(n int) int {\n\treturn n * 2\n}\n\n" +
          "func main() {\n\t_ = double(2)\n}\n",
      });
      lines.push(
        ...await benchLanguage("go (gopls)", workspace, "main.go", 'var other int = double("2")\n'),
      );
    } else lines.push("go: gopls or go is not on PATH (see .ci/run)");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return lines;
}

if (import.meta.main) {
  for (const line of await benchLsp()) console.log(line);
}
