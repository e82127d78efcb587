/**
 * The search tools' two npm libraries, ignore (.gitignore rules) and
 * picomatch (globs), evaluated at the first search call instead of at every
 * engine start: a `skiff tool read` or a session that never searches does not
 * pay for them (docs/performance.md "Start-up"). The `import()`s are written
 * out, so they are in the engine Worker's module graph, which may load nothing
 * else; each search tool's `execute` awaits `loadSearchLibraries()` first.
 */
import type ignoreModule from "ignore";
import type picomatchModule from "picomatch";

export interface SearchLibraries {
  ignore: typeof ignoreModule;
  picomatch: typeof picomatchModule;
}

let loaded: SearchLibraries | undefined;
let loading: Promise<SearchLibraries> | undefined;

/** Evaluates both libraries once; later calls resolve at once. */
export function loadSearchLibraries(): Promise<SearchLibraries> {
  return loading ??= Promise.all([import("ignore"), import("picomatch")]).then(
    ([ignore, picomatch]) => loaded = { ignore: ignore.default, picomatch: picomatch.default },
  );
}

/** The libraries, once `loadSearchLibraries()` has resolved. */
export function searchLibraries(): SearchLibraries {
  if (!loaded) {
    throw new Error(
      "skiff bug: a search helper ran before loadSearchLibraries() resolved; await it at the start of the tool's execute.",
    );
  }
  return loaded;
}
