/**
 * Where a config value came from, answered from the one reading of the files
 * (`LoadedConfig.sources`): the built-in default, the global file, the
 * project file, the environment or a flag. The project-trust rules work from
 * this: what an untrusted project file may not widen is taken out of its own
 * layer and the layers are merged again, without reading any file a second
 * time (a file changed in between can no longer give a mixed view).
 */
import { assembleLayers, type LayerSource, type LoadedConfig } from "./load.ts";
import { isPlainObject } from "./merge.ts";
import { projectAllows, withoutProjectAllows } from "./project_allows.ts";
import type { Config } from "./schema.ts";

export type ConfigOrigin = LayerSource | "default";

/**
 * The layer that decided the value at `keyPath` (`["sandbox", "mode"]`): the
 * last one that sets it, or "default" when none does. For the lists that
 * collect entries from every layer (`sandbox.addDirs`, `env`, `protect`) this
 * is the last layer that added any.
 */
export function originOf(loaded: Pick<LoadedConfig, "sources">, keyPath: string[]): ConfigOrigin {
  for (let index = loaded.sources.length - 1; index >= 0; index--) {
    if (valueAt(loaded.sources[index].config, keyPath) !== undefined) {
      return loaded.sources[index].source;
    }
  }
  return "default";
}

/** What one layer's own content says at `keyPath`, or undefined when it says nothing. */
export function layerValue(
  loaded: Pick<LoadedConfig, "sources">,
  source: LayerSource,
  keyPath: string[],
): unknown {
  const layer = loaded.sources.find((candidate) => candidate.source === source);
  return layer ? valueAt(layer.config, keyPath) : undefined;
}

/**
 * The same loaded config for a project the user does not trust: the project
 * file's allow rules (its own and its agents') are left out of the merged
 * config and of the permission layers; its deny and ask rules stay. The
 * project file's own content (`project`) is kept whole, for messages and for
 * the other trust rules.
 */
export function distrustProject(loaded: LoadedConfig): LoadedConfig {
  const project = loaded.sources.find((layer) => layer.source === "project");
  if (!project) return loaded;
  const sources = loaded.sources.map((layer) =>
    layer === project ? { ...layer, config: withoutProjectAllows(layer.config) } : layer
  );
  return {
    ...loaded,
    ...assembleLayers(sources),
    project: loaded.project,
    ignoredProjectAllows: projectAllows(project.config),
  };
}

function valueAt(config: Config, keyPath: string[]): unknown {
  let value: unknown = config;
  for (const key of keyPath) {
    if (!isPlainObject(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
