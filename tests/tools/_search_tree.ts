/**
 * A small tree for the search tools (glob, grep, list) that exercises the
 * ignore rules: a root .gitignore (globs, a folder, an anchored name), a
 * nested .gitignore with a negation, a nested repository whose own rules
 * replace the outer ones, hidden folders, `.git` itself and a binary file.
 */
import { makeWorkspace, type TestWorkspace } from "./_context.ts";

export const TREE: Record<string, string> = {
  ".git/HEAD": "ref: refs/heads/main needle\n",
  ".gitignore": "*.log\nbuild/\n/secret.txt\n.skiff-data/\n",
  ".github/workflows/ci.yml": "name: ci # needle\n",
  "README.md": "# Demo\nneedle in the readme\n",
  "app.log": "needle in a log\n",
  "secret.txt": "needle secret at the root\n",
  "build/out.js": "const needle = 1;\n",
  "src/main.ts":
    "import { help } from './util/helpers.ts';\n// needle one\nhelp();\n// NEEDLE two\n",
  "src/util/helpers.ts": "export function help() {\n  return 'needle';\n}\n",
  "src/util/debug.log": "needle debug\n",
  "src/secret.txt": "needle secret, but not anchored here\n",
  "pkg/.gitignore": "generated/\n!keep.log\n",
  "pkg/keep.log": "needle kept log\n",
  "pkg/generated/gen.ts": "export const needle = 'generated';\n",
  "pkg/lib/index.ts": "export * from './needle.ts';\n",
  "vendor/repo/.git/HEAD": "ref: refs/heads/main\n",
  "vendor/repo/.gitignore": "skip.ts\n",
  "vendor/repo/x.log": "needle in a nested repo log\n",
  "vendor/repo/skip.ts": "needle skipped\n",
};

/** Files a gitignore-aware search must see (the .skiff-data folder aside). */
export const VISIBLE = [
  ".github/workflows/ci.yml",
  ".gitignore",
  "README.md",
  "bin/data.bin",
  "pkg/.gitignore",
  "pkg/keep.log",
  "pkg/lib/index.ts",
  "src/main.ts",
  "src/secret.txt",
  "src/util/helpers.ts",
  "vendor/repo/.gitignore",
  "vendor/repo/x.log",
].sort();

export async function searchWorkspace(): Promise<TestWorkspace> {
  const ws = await makeWorkspace();
  for (const [file, content] of Object.entries(TREE)) await ws.write(file, content);
  await ws.write("bin/data.bin", new Uint8Array([0, 1, 2, ...new TextEncoder().encode("needle")]));
  return ws;
}
