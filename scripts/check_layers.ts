/**
 * The import-direction check (`deno task layers`, run by CI). Every folder
 * under src/ is a layer; a module may import from its own layer and from
 * the layers below it, never from one above. The order is the table in
 * docs/architecture.md; change both together. Every relative import counts,
 * type-only ones too, and so do `import()` and Worker module URLs.
 *
 * Modules loaded by a computed specifier (src/boot/lazy_modules.ts lists
 * them) are edges too: a file that names one — by its path from the root
 * (`"src/cli/main.ts"`) or from the file (`"./run/run.ts"`) — imports it.
 *
 * A second rule keeps folders honest about what they offer: a module whose
 * name starts with `_` belongs to its folder, and only modules in that same
 * folder may import it (tests and scripts may reach in; they are not checked).
 * A folder with an entry module (`mod.ts`) offers through it what others use.
 *
 * Usage: deno run --allow-read scripts/check_layers.ts [root]
 */
import * as path from "node:path";

/** Bottom first. A layer may import its own folder and any layer listed before it. */
export const LAYERS: readonly string[] = [
  "lib", // helpers that know nothing of skiff: no import from src/ outside lib/
  "contracts", // shared types and rules every layer speaks: lib/ only, no npm
  "version.ts",
  "sandbox",
  "config",
  "store",
  "boot",
  "provider",
  "permission",
  "definitions",
  "lsp", // language servers for the diagnostics after an edit
  "tools",
  "undo",
  "mcp",
  "hooks",
  "ui",
  "engine",
  "trust",
  "host",
  "cli",
];

/**
 * Known imports against the direction, each with why it stays for now.
 * Keyed `from → to` (paths under src/). The check fails when an entry is no
 * longer needed, so this list only shrinks.
 */
export const ALLOWED: Readonly<Record<string, string>> = {
  // The one module that names skiff's programs by URL: the entry point, for
  // the child processes that run skiff itself (a hidden step run by path, not
  // code it loads), and the two modules start-up loads by URL. Their places
  // are known only from the root.
  "contracts/entry.ts → ../main.ts": "skiff's entry point, for a child process that runs skiff",
  "contracts/entry.ts → cli/start.ts": "the CLI's start, which main.ts loads by URL",
  "contracts/entry.ts → engine/worker_main.ts": "the engine's Worker, started by URL",
};

export interface Violation {
  from: string;
  to: string;
  fromLayer: string;
  toLayer: string;
}

/** The layer of a path under src/: its first folder, or the file itself at the top. */
export function layerOf(relative: string): string {
  return relative.split("/")[0];
}

const STATIC = /^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']/gm;
const BARE = /^\s*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
const WORKER_URL = /\bnew URL\(\s*["']([^"']+\.ts)["']\s*,\s*import\.meta\.url\s*,?\s*\)/g;

/**
 * Where `specifier`, written in `file` (both relative to src/), leads,
 * relative to src/. A root-relative URL (`../../src/cli/main.ts`, the form
 * docs/architecture.md asks for) comes back into src/; a file outside src/
 * (`../main.ts`) keeps its leading `../`.
 */
export function resolveImport(file: string, specifier: string): string {
  const to = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  return to.startsWith("../src/") ? to.slice("../src/".length) : to;
}

/** A resolved import as the messages name it: under src/, or from the project's root. */
function shown(to: string): string {
  return to.startsWith("../") ? to.slice(3) : `src/${to}`;
}

/** The relative module specifiers a source text imports (any form, type-only too). */
export function importSpecifiers(source: string): string[] {
  const found = new Set<string>();
  for (const pattern of [STATIC, BARE, DYNAMIC, WORKER_URL]) {
    for (const match of source.matchAll(pattern)) {
      if (match[1].startsWith(".")) found.add(match[1]);
    }
  }
  return [...found];
}

/** Where the list of lazily loaded modules lives, under src/. */
export const LAZY_LIST = "boot/lazy_modules.ts";

/** The modules (relative to src/) the lazy list names, read from its text. */
export function lazyModules(files: Map<string, string>): Set<string> {
  const source = files.get(LAZY_LIST) ?? "";
  return new Set([...source.matchAll(/["']src\/([^"']+\.ts)["']/g)].map((match) => match[1]));
}

/**
 * Where `file` leads, relative to src/ (or `../` and on for outside it): its
 * import specifiers; each module of skiff it names by its path from the root
 * in a string (`fromRoot("src/…")`, `importLazy("src/…")`), for it is loaded
 * by that name; and each lazily loaded module it names by its own relative
 * path. The lazy list itself names modules without loading them.
 */
export function edgesOf(
  file: string,
  source: string,
  lazy: Set<string>,
  modules: ReadonlySet<string> = lazy,
): string[] {
  const found = new Set(
    importSpecifiers(source).map((specifier) => resolveImport(file, specifier)),
  );
  if (file !== LAZY_LIST) {
    for (const match of source.matchAll(/["'`]((?:src\/|\.{1,2}\/)[^"'`\n$]+\.ts)["'`]/g)) {
      const rootForm = match[1].startsWith("src/");
      const named = rootForm ? match[1].slice("src/".length) : resolveImport(file, match[1]);
      if (lazy.has(named) || (rootForm && modules.has(named))) found.add(named);
    }
  }
  return [...found];
}

/** Packages a contracts module imports: only Node built-ins (`node:crypto`) are allowed there. */
export function packageImports(source: string): string[] {
  const found = new Set<string>();
  for (const pattern of [STATIC, BARE, DYNAMIC]) {
    for (const match of source.matchAll(pattern)) {
      if (!match[1].startsWith(".") && !match[1].startsWith("node:")) found.add(match[1]);
    }
  }
  return [...found];
}

/** Imports that go up the layer order, for the files given (paths relative to src/). */
export function findViolations(files: Map<string, string>): Violation[] {
  const violations: Violation[] = [];
  const lazy = lazyModules(files);
  const modules = new Set(files.keys());
  for (const [file, source] of files) {
    const fromLayer = layerOf(file);
    const fromRank = LAYERS.indexOf(fromLayer);
    for (const to of edgesOf(file, source, lazy, modules)) {
      if (to.startsWith("../")) {
        // Outside src/ (main.ts, scripts/): above every layer.
        violations.push({ from: file, to, fromLayer, toLayer: "the project's root" });
        continue;
      }
      const toLayer = layerOf(to);
      if (toLayer === fromLayer) continue;
      const toRank = LAYERS.indexOf(toLayer);
      if (fromRank === -1 || toRank === -1 || toRank > fromRank) {
        violations.push({ from: file, to, fromLayer, toLayer });
      }
    }
  }
  return violations.sort((a, b) => `${a.from}${a.to}`.localeCompare(`${b.from}${b.to}`));
}

/** Imports of a folder's own `_` module from outside that folder. */
export function findPrivateReaches(files: Map<string, string>): Violation[] {
  const reaches: Violation[] = [];
  for (const [file, source] of files) {
    for (const specifier of importSpecifiers(source)) {
      const to = resolveImport(file, specifier);
      if (!path.posix.basename(to).startsWith("_")) continue;
      if (path.posix.dirname(to) === path.posix.dirname(file)) continue;
      reaches.push({ from: file, to, fromLayer: layerOf(file), toLayer: layerOf(to) });
    }
  }
  return reaches.sort((a, b) => `${a.from}${a.to}`.localeCompare(`${b.from}${b.to}`));
}

/**
 * The file-level import cycles among `files` (paths relative to src/): each
 * group of two or more modules that reach one another, members sorted and
 * joined by " ↔ ", the groups sorted. An allowlisted edge (`ALLOWED`, an
 * upward name of a program, not code loaded) does not close a cycle.
 */
export function findCycles(
  files: Map<string, string>,
  allowed: Readonly<Record<string, string>> = ALLOWED,
): string[] {
  const graph = new Map<string, string[]>();
  const lazy = lazyModules(files);
  const modules = new Set(files.keys());
  for (const [file, source] of files) {
    graph.set(
      file,
      edgesOf(file, source, lazy, modules)
        .filter((to) => files.has(to) && !(`${file} → ${to}` in allowed)),
    );
  }
  // Tarjan's strongly connected components, iterative so a deep chain cannot overflow the stack.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[] = [];
  let counter = 0;
  for (const start of graph.keys()) {
    if (order.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    while (work.length) {
      const frame = work[work.length - 1];
      const [node, next] = frame;
      if (next === 0) {
        order.set(node, counter);
        low.set(node, counter++);
        stack.push(node);
        onStack.add(node);
      }
      const edges = graph.get(node)!;
      if (next < edges.length) {
        frame[1]++;
        const to = edges[next];
        if (!order.has(to)) work.push([to, 0]);
        else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, order.get(to)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent)!, low.get(node)!));
      }
      if (low.get(node) !== order.get(node)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort().join(" ↔ "));
    }
  }
  return groups.sort();
}

async function readSources(srcDir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory) await walk(full);
      else if (entry.isFile && entry.name.endsWith(".ts")) {
        files.set(
          path.relative(srcDir, full).split(path.sep).join("/"),
          await Deno.readTextFile(full),
        );
      }
    }
  }
  await walk(srcDir);
  return files;
}

async function main(root: string): Promise<number> {
  const files = await readSources(path.join(root, "src"));
  const unknown = [...new Set([...files.keys()].map(layerOf))].filter((l) => !LAYERS.includes(l));
  const violations = findViolations(files);
  const key = (v: Violation) => `${v.from} → ${v.to}`;
  const blocking = violations.filter((v) => !(key(v) in ALLOWED));
  const used = new Set(violations.map(key));
  const stale = Object.keys(ALLOWED).filter((k) => !used.has(k));
  const reaches = findPrivateReaches(files);
  const cycles = findCycles(files);
  const packages = [...files].filter(([file]) => layerOf(file) === "contracts")
    .flatMap(([file, source]) => packageImports(source).map((name) => `src/${file} → ${name}`));
  for (const layer of unknown) {
    console.error(
      `src/${layer} is not in the layer order: add it to LAYERS in scripts/check_layers.ts and to docs/architecture.md`,
    );
  }
  for (const v of blocking) {
    console.error(`src/${v.from} → ${shown(v.to)} (${v.fromLayer} may not import ${v.toLayer})`);
  }
  for (const k of stale) {
    console.error(
      `allowlisted import no longer exists: ${k} (remove it from ALLOWED in scripts/check_layers.ts)`,
    );
  }
  for (const r of reaches) {
    console.error(
      `src/${r.from} → ${
        shown(r.to)
      } (a \`_\` module is its folder's own: export what others need from the folder's entry module)`,
    );
  }
  // Type-only imports count: a cycle of types is still two files that cannot be read one without the other.
  for (const cycle of cycles) {
    console.error(
      `import cycle: ${cycle} (break it: move what both need into a module neither imports)`,
    );
  }
  for (const p of packages) {
    console.error(`${p} (contracts may import only node: built-ins, no package)`);
  }
  if (
    unknown.length || blocking.length || stale.length || reaches.length || packages.length ||
    cycles.length
  ) {
    console.error(
      `layers: ${blocking.length} import(s) against the layer order; ` +
        "move the shared piece down (often into src/contracts/) rather than importing up",
    );
    return 1;
  }
  const imports = [...files.values()].reduce((n, s) => n + importSpecifiers(s).length, 0);
  const allowed = violations.length ? `, ${violations.length} allowlisted` : "";
  console.log(
    `layers: ${files.size} modules, ${imports} relative imports, ${LAYERS.length} layers` +
      ` (${
        LAYERS.join(" < ")
      }): none goes up${allowed}; no \`_\` module is used outside its folder; ` +
      "no import cycle",
  );
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args[0] ?? path.dirname(import.meta.dirname!)));
}
