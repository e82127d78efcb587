/**
 * The large tree the benchmarks share: `packages` × 20 modules × 50 source
 * files, with nested .gitignore files and ignored output (a `generated/`
 * folder and a `build.log` per module) that gitignore-aware work must skip.
 * One file per module holds `needleMarker`, which search looks for.
 */
import * as path from "node:path";

export const MODULES = 20;
const FILES_PER_MODULE = 50;

/** Builds the tree under `root` and returns how many source files it holds. */
export function buildTree(root: string, packages: number): number {
  let files = 0;
  Deno.mkdirSync(path.join(root, ".git"), { recursive: true });
  Deno.writeTextFileSync(path.join(root, ".gitignore"), "*.log\ndist/\n");
  for (let p = 0; p < packages; p++) {
    const pkg = path.join(root, `pkg${p}`);
    Deno.mkdirSync(pkg, { recursive: true });
    Deno.writeTextFileSync(path.join(pkg, ".gitignore"), "generated/\n*.tmp\n");
    for (let m = 0; m < MODULES; m++) {
      const dir = path.join(pkg, "src", `mod${m}`);
      Deno.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < FILES_PER_MODULE; f++) {
        const lines = [`import { helper } from "../shared.ts";`, ""];
        for (let l = 0; l < 28; l++) {
          lines.push(
            `export function fn${p}_${m}_${f}_${l}(x: number) { return helper(x) * ${l}; }`,
          );
        }
        if (f === 7) lines.push("const needleMarker = 42;");
        Deno.writeTextFileSync(path.join(dir, `file${f}.ts`), lines.join("\n") + "\n");
        files++;
      }
      // Ignored output that a gitignore-aware search must not pay for.
      Deno.mkdirSync(path.join(dir, "generated"), { recursive: true });
      Deno.writeTextFileSync(path.join(dir, "generated", "out.ts"), "const needleMarker = 0;\n");
      Deno.writeTextFileSync(path.join(dir, "build.log"), "needleMarker in a log\n");
    }
    Deno.mkdirSync(path.join(pkg, "dist"), { recursive: true });
    Deno.writeTextFileSync(path.join(pkg, "dist", "bundle.js"), "var needleMarker;\n");
  }
  return files;
}
