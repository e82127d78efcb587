"""A client of `skiff mcp serve` written with the Python MCP SDK, as a user
would write one: `Client` with its defaults. Run by python_sdk_test.ts with
one JSON argument ({"transport": "stdio", "command", "args", "env", "cwd"}
or {"transport": "http", "url", "token"}, plus "marker": a sleep's length
no other process uses); prints what it saw as one JSON object.
"""
import json
import os
import sys
import time

import anyio
import httpx2
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

settings = json.loads(sys.argv[1])
SLEEP = f"sleep {settings['marker']}"


def sleeping() -> bool:
    """Whether the long command's process is alive (its command line names the marker)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                if SLEEP.encode() in file.read().replace(b"\0", b" "):
                    with open(f"/proc/{pid}/stat") as stat:
                        if stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                            return True
        except OSError:
            pass
    return False


async def until(condition, seconds: float) -> float:
    """Seconds until `condition()` holds; -1 when it did not within `seconds`."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if condition():
            return time.monotonic() - start
        await anyio.sleep(0.05)
    return -1


def text(result) -> str:
    return "\n".join(part.text for part in result.content if part.type == "text")


async def read(client: Client) -> str:
    return text(await client.call_tool("read", {"file_path": "notes.txt"}))


async def cancel_long_call(client: Client, other: Client, seen: dict) -> None:
    """Starts the long bash call, reads through `other` meanwhile, cancels it, reads again."""
    outcome = {}

    async def long_call(scope: anyio.CancelScope) -> None:
        with scope:
            result = await client.call_tool("bash", {"command": SLEEP})
            outcome["finished"] = text(result)

    scope = anyio.CancelScope()
    async with anyio.create_task_group() as group:
        group.start_soon(long_call, scope)
        seen["sleep_started_s"] = await until(sleeping, 30)
        started = time.monotonic()
        seen["read_during_call"] = await read(other)
        seen["read_during_call_s"] = time.monotonic() - started
        scope.cancel()
        started = time.monotonic()
    seen["call_ended_s"] = time.monotonic() - started
    seen["long_call_finished"] = outcome.get("finished")
    started = time.monotonic()
    seen["read_after_cancel"] = await read(client)
    seen["read_after_cancel_s"] = time.monotonic() - started
    seen["sleep_gone_s"] = await until(lambda: not sleeping(), 10)


async def stdio(seen: dict) -> None:
    server = StdioServerParameters(
        command=settings["command"], args=settings["args"], env=settings["env"], cwd=settings["cwd"]
    )
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        seen["tools"] = {
            tool.name: {"title": tool.title, **(tool.annotations.model_dump() if tool.annotations else {})}
            for tool in tools
        }
        seen["read"] = await read(client)
        refused = await client.call_tool("bash", {"command": "rm -rf notes.txt"})
        seen["refused"] = {"is_error": refused.is_error, "text": text(refused)}
        # One client: the read while the long call runs goes through the same session.
        await cancel_long_call(client, client, seen)


async def http(seen: dict) -> None:
    def connect() -> Client:
        headers = {"Authorization": f"Bearer {settings['token']}"}
        http_client = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300))
        return Client(streamable_http_client(settings["url"], http_client=http_client))

    async with connect() as first, connect() as second:
        seen["first_read"] = await read(first)
        seen["second_read"] = await read(second)
        # The second client's read is not held up by the first client's long call.
        await cancel_long_call(first, second, seen)


async def main() -> None:
    seen: dict = {}
    await (stdio if settings["transport"] == "stdio" else http)(seen)
    print(json.dumps(seen))


anyio.run(main)
