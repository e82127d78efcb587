"""A small MCP server written with the Python MCP SDK (`MCPServer`, the
SDK's FastMCP), over stdio: the server python_sdk_test.ts configures in
skiff.
"""
from mcp.server.mcpserver import MCPServer

server = MCPServer("pytools")


@server.tool()
def shout(text: str) -> str:
    """Returns the text in capitals with an exclamation mark."""
    return text.upper() + "!"


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two whole numbers."""
    return a + b


if __name__ == "__main__":
    server.run()
