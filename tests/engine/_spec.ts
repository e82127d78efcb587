/**
 * An EngineSpec for tests: headless, workspace-write, no MCP, nothing
 * allowed or denied by flags; override what a test is about.
 */
import type { EngineSpec } from "../../src/engine/types.ts";

export function testSpec(overrides: Partial<EngineSpec> = {}): EngineSpec {
  return {
    workspace: "/work/project",
    dataDir: "/tmp/skiff-data",
    configDir: "/tmp/skiff-config",
    settings: {},
    permissionLayers: [],
    model: "m",
    agent: "build",
    depth: 0,
    inheritedPermission: [],
    owns: [],
    mcp: { enabled: false, env: {}, blocked: [] },
    sandbox: { mode: "workspace-write", network: false, addDirs: [], env: [] },
    flags: { allow: [], ask: [], deny: [], yes: false },
    warnings: [],
    interactive: false,
    provider: { baseURL: "http://127.0.0.1:1/v1", apiKey: "k" },
    ...overrides,
  };
}

/**
 * A real temporary root holding work/, data/ and config/ (and `more`
 * folders), removed after `body`.
 */
export async function withSpecRoot(
  body: (root: string) => Promise<void>,
  more: string[] = [],
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-spec-" }));
  try {
    for (const dir of ["work", "data", "config", ...more]) await Deno.mkdir(`${root}/${dir}`);
    await body(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * A spec whose folders are `withSpecRoot`'s, for the "tool" agent: no model
 * is asked, every call goes through runTool as `skiff tool` does.
 */
export function toolSpecIn(root: string, overrides: Partial<EngineSpec> = {}): EngineSpec {
  return testSpec({
    workspace: `${root}/work`,
    dataDir: `${root}/data`,
    configDir: `${root}/config`,
    agent: "tool",
    ...overrides,
  });
}
