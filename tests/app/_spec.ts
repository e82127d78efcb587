/**
 * An EngineSpec for tests: headless, workspace-write, no MCP, nothing
 * allowed or denied by flags; override what a test is about.
 */
import type { EngineSpec } from "../../src/app/engine_types.ts";

export function testSpec(overrides: Partial<EngineSpec> = {}): EngineSpec {
  return {
    workspace: "/work/project",
    dataDir: "/tmp/skiff-data",
    configDir: "/tmp/skiff-config",
    config: {},
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
