/**
 * skiff's own POSIX path functions (src/lib/path.ts), which replaced `node:path` and
 * `node:url` in src/ to spare each isolate the evaluation of Deno's Node internals: every
 * function returns exactly what `node:path`'s `posix` functions and `node:url`'s
 * `fileURLToPath` return, on a hand list of edge cases and on a few thousand seeded
 * pseudo-random paths, and throws where they throw. The module itself imports nothing.
 */
import { posix as nodePath } from "node:path";
import { fileURLToPath as nodeFileURLToPath } from "node:url";
import { assertEquals, assertThrows } from "../support/assert.ts";
import * as path from "../../src/lib/path.ts";

/** What a call returned, or the kind of error it threw, in a form assertEquals compares. */
function outcome(call: () => unknown): unknown {
  try {
    return { value: call() };
  } catch (error) {
    return { threw: (error as Error).name };
  }
}

/** Each case whose outcome differs between skiff's function and Node's, described. */
function differences<A extends unknown[]>(
  name: string,
  cases: A[],
  ours: (...args: A) => unknown,
  node: (...args: A) => unknown,
): string[] {
  const found: string[] = [];
  for (const args of cases) {
    const mine = outcome(() => ours(...args));
    const theirs = outcome(() => node(...args));
    if (JSON.stringify(mine) !== JSON.stringify(theirs)) {
      found.push(
        `${name}(${JSON.stringify(args)}): ${JSON.stringify(mine)}, node ${JSON.stringify(theirs)}`,
      );
    }
  }
  return found;
}

const EDGE_PATHS = [
  "",
  ".",
  "..",
  "/",
  "//",
  "///",
  "./",
  "../",
  "a",
  "a/",
  "a//",
  "/a",
  "//a",
  "///a",
  "/a/",
  "/a//b",
  "a/b/c",
  "/a/b/c/",
  "a/../..",
  "../../x",
  "/../../x",
  "a/./b/../../c",
  "a//b///c",
  "..a",
  "a..",
  "...",
  ".hidden",
  "/dir/.hidden",
  "/a/bc",
  "/a/b",
  "/a/b/",
  "/a/b/c/../../..",
  "./a/./",
  "caf\u00e9/\u{1F600}/\u65e5\u672c",
  "with space/and more ",
  " /x",
  "a\\b",
  "b.c",
  "/b.c.d",
  "file.ts",
  "/x/file.test.ts/",
];

const SUFFIXES = [
  "",
  ".",
  ".ts",
  "ts",
  ".c",
  "c",
  "a",
  "/",
  "..",
  "b.c",
  "file.ts",
  "x",
  "ax",
  "/a",
];

function pairsOf<T>(items: T[]): [T, T][] {
  return items.flatMap((first) => items.map((second): [T, T] => [first, second]));
}

/** A seeded generator (mulberry32), so a failure repeats. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const SEGMENTS = ["", ".", "..", "a", "b.c", "..d", "/", "e..", ".f", "\u00e9", "g h"];

function randomPaths(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
  return Array.from({ length: count }, () => {
    let built = random() < 0.4 ? "/" : "";
    const length = Math.floor(random() * 7);
    for (let index = 0; index < length; index++) {
      built += pick(SEGMENTS) + (random() < 0.7 ? "/" : "");
    }
    return built;
  });
}

Deno.test("path: separator, delimiter and the posix namespace are Node's", () => {
  assertEquals([path.sep, path.delimiter], [nodePath.sep, nodePath.delimiter]);
  assertEquals([path.posix.sep, path.posix.delimiter], [nodePath.sep, nodePath.delimiter]);
  assertEquals(path.posix.basename("/a/b.ts", ".ts"), "b");
  assertEquals(path.posix.dirname("/a/b.ts"), "/a");
});

Deno.test("path: every function returns what node:path's posix returns on the edge cases", () => {
  const single = EDGE_PATHS.map((item): [string] => [item]);
  const pairs = pairsOf(EDGE_PATHS);
  const withSuffix = EDGE_PATHS.flatMap((item) =>
    [...SUFFIXES, item, nodePath.basename(item)].map((suffix): [string, string] => [item, suffix])
  );
  const found = [
    ...differences("normalize", single, path.normalize, nodePath.normalize),
    ...differences("isAbsolute", single, path.isAbsolute, nodePath.isAbsolute),
    ...differences("dirname", single, path.dirname, nodePath.dirname),
    ...differences("basename", single, path.basename, nodePath.basename),
    ...differences("basename", withSuffix, path.basename, nodePath.basename),
    ...differences("posix.basename", withSuffix, path.posix.basename, nodePath.basename),
    ...differences("join", [[], ...single, ...pairs], path.join, nodePath.join),
    ...differences("resolve", [[], ...single, ...pairs], path.resolve, nodePath.resolve),
    ...differences("relative", pairs, path.relative, nodePath.relative),
    ...differences(
      "resolve",
      [["/a", "/b", "c"], ["/a", "b", "/c", "d/.."], ["x", "/y", "z", ""], ["", ""], ["/", ".."]],
      path.resolve,
      nodePath.resolve,
    ),
    ...differences(
      "join",
      [["", "", ""], ["/", "/", "a"], ["a", "", "..", "..", "b/"], ["..", "/x/", "./y"]],
      path.join,
      nodePath.join,
    ),
  ];
  assertEquals(found, []);
});

Deno.test("path: relative between equal paths, the root, siblings and a shared prefix", () => {
  assertEquals(path.relative("/a/b", "/a/b"), "");
  assertEquals(path.relative("/a/b", "/a/b/"), "");
  assertEquals(path.relative("/", "/a/b"), "a/b");
  assertEquals(path.relative("/a/b", "/"), "../..");
  assertEquals(path.relative("/a/b", "/a/c"), "../c");
  assertEquals(path.relative("/a/bc", "/a/b"), "../b");
  assertEquals(path.relative("/a/b", "/a/bc"), "../bc");
  assertEquals(path.relative(".", "x/y"), "x/y");
});

Deno.test("path: every function returns what node:path's posix returns on 3000 seeded random paths", () => {
  const firsts = randomPaths(3000, 15);
  const seconds = randomPaths(3000, 1015);
  const thirds = randomPaths(3000, 2015);
  const single = firsts.map((item): [string] => [item]);
  const pairs = firsts.map((item, index): [string, string] => [item, seconds[index]]);
  const triples = firsts.map((
    item,
    index,
  ): [string, string, string] => [item, seconds[index], thirds[index]]);
  const withSuffix = firsts.map((item, index): [string, string] => [
    item,
    index % 3 === 0
      ? nodePath.basename(item)
      : index % 3 === 1
      ? SUFFIXES[index % SUFFIXES.length]
      : seconds[index],
  ]);
  const found = [
    ...differences("normalize", single, path.normalize, nodePath.normalize),
    ...differences("isAbsolute", single, path.isAbsolute, nodePath.isAbsolute),
    ...differences("dirname", single, path.dirname, nodePath.dirname),
    ...differences("basename", single, path.basename, nodePath.basename),
    ...differences("basename", withSuffix, path.basename, nodePath.basename),
    ...differences("join", pairs, path.join, nodePath.join),
    ...differences("join", triples, path.join, nodePath.join),
    ...differences("resolve", single, path.resolve, nodePath.resolve),
    ...differences("resolve", triples, path.resolve, nodePath.resolve),
    ...differences("relative", pairs, path.relative, nodePath.relative),
  ];
  assertEquals(found.slice(0, 20), []);
});

const FILE_URLS = [
  "file:///",
  "file:///a/b.ts",
  "file:///a%20b/c",
  "file:///caf%C3%A9/%F0%9F%98%80",
  "file:///a%2fb",
  "file:///a%2Fb",
  "file:///a%252Fb",
  "file:///a/../b/./c",
  "file:///a?query#hash",
  "file:///a%3Fb%23c",
  "file:///dir/",
  "file://localhost/x",
  "file://host/x",
  "file:///%E0%A4%A",
  "file:///%",
  "file:///100%25",
  "http://example.com/a",
  "https:///a",
  "data:text/plain,a",
];

Deno.test("fileURLToPath: the same path as node:url, or an error of the same kind, for strings and URLs", () => {
  const random = seededRandom(7);
  const pieces = [
    "a",
    "%20",
    "%2F",
    "%2f",
    "%C3%A9",
    "%25",
    "%",
    "..",
    ".",
    "/",
    "b c",
    "\u00e9",
    "?q",
    "#h",
  ];
  const generated = Array.from({ length: 500 }, () => {
    let built = "file:///";
    const length = Math.floor(random() * 6);
    for (let index = 0; index < length; index++) {
      built += pieces[Math.floor(random() * pieces.length)];
    }
    return built;
  });
  const strings = [...FILE_URLS, ...generated].map((url): [string] => [url]);
  const urls = [...FILE_URLS, ...generated].map((url): [URL] => [new URL(url)]);
  const found = [
    ...differences("fileURLToPath", strings, path.fileURLToPath, nodeFileURLToPath),
    ...differences("fileURLToPath", urls, path.fileURLToPath, nodeFileURLToPath),
    ...differences("fileURLToPath", [[import.meta.url]], path.fileURLToPath, nodeFileURLToPath),
  ];
  assertEquals(found.slice(0, 20), []);
  assertEquals(path.fileURLToPath("file:///a%20b/caf%C3%A9"), "/a b/café");
  assertThrows(() => path.fileURLToPath("file:///a%2Fb"), TypeError, "encoded /");
  assertThrows(() => path.fileURLToPath("http://example.com/a"), TypeError, "scheme file");
});

Deno.test("path: src/lib/path.ts imports nothing", async () => {
  const source = await Deno.readTextFile(new URL("../../src/lib/path.ts", import.meta.url));
  const imports = source.split("\n").filter((line) =>
    /^\s*(import|export)\b.*\bfrom\s*["']/.test(line) || /^\s*import\s*["']/.test(line) ||
    /\bimport\s*\(/.test(line) || /\brequire\s*\(/.test(line)
  );
  assertEquals(imports, []);
});
