"""Drives `memlint mcp` with the official MCP Python SDK's stdio client.

Usage: client.py MEMLINT_BINARY WORKSPACE SCENARIO

Prints one JSON object with what the scenario saw; tests/cli/mcp.rs asserts on
it. Each scenario starts its own server process(es), as a client would.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BIN, ROOT, SCENARIO = sys.argv[1], sys.argv[2], sys.argv[3]


def params():
    return StdioServerParameters(command=BIN, args=["--root", ROOT, "mcp"], cwd=ROOT)


def result(r):
    """A tool result as plain data."""
    return {
        "is_error": bool(r.is_error),
        "structured": r.structured_content,
        "text": "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text"),
    }


async def session_do(steps):
    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            return await steps(session, init)


async def tools(session, init):
    listed = await session.list_tools()
    return {
        "protocol": init.protocol_version,
        "server": init.server_info.name,
        "tools": [
            {
                "name": t.name,
                "description_chars": len(t.description or ""),
                "input_schema": t.input_schema,
            }
            for t in listed.tools
        ],
    }


async def happy(session, init):
    out = {}
    out["write"] = result(await session.call_tool("memory_write", {
        "kind": "decision",
        "title": "Use gix for git reads",
        "body": "Reads go through gix.",
        "sources": ["file:docs/bank-api.md"],
        "tags": ["git"],
    }))
    out["read"] = result(await session.call_tool("memory_read", {"target": "use-gix-for-git-reads"}))
    out["update"] = result(await session.call_tool("memory_update", {
        "target": "use-gix-for-git-reads", "tags": ["git", "reads"]}))
    out["rewrite"] = result(await session.call_tool("memory_update", {
        "target": "use-gix-for-git-reads", "body": "Something else."}))
    out["search"] = result(await session.call_tool("memory_search", {"query": "gix reads"}))
    out["search_ja"] = result(await session.call_tool("memory_search", {"query": "丸め"}))
    out["context"] = result(await session.call_tool("memory_context", {}))
    out["recent"] = result(await session.call_tool("memory_recent", {"limit": 3}))
    out["log"] = result(await session.call_tool("memory_log", {}))
    out["export"] = result(await session.call_tool("session_memory", {"action": "export", "id": "CMEM-20261102-174500"}))
    out["import"] = result(await session.call_tool("session_memory", {"action": "import", "text": "not a session"}))
    return out


async def refused(session, init):
    out = {}
    out["bad_source"] = result(await session.call_tool("memory_write", {
        "kind": "decision", "title": "Cache the statements", "sources": ["docs/a.md"]}))
    out["secret"] = result(await session.call_tool("memory_write", {
        "kind": "decision", "title": "Use the bank token", "sources": ["file:docs/bank-api.md"],
        "body": "The token is ghp_abcdefghijklmnopqrstuvwxyz0123456789."}))
    out["similar"] = result(await session.call_tool("memory_write", {
        "kind": "decision", "title": "Use SQLite statement caches", "sources": ["file:docs/bank-api.md"]}))
    out["exists"] = result(await session.call_tool("memory_write", {
        "kind": "decision", "title": "Use SQLite statement cache", "sources": ["file:docs/bank-api.md"]}))
    out["escape"] = result(await session.call_tool("memory_read", {"target": "../../etc/passwd"}))
    out["bad_slug"] = result(await session.call_tool("memory_write", {
        "kind": "decision", "title": "x", "slug": "../../x", "sources": ["file:docs/bank-api.md"]}))
    out["bad_kind"] = result(await session.call_tool("memory_write", {
        "kind": "summary", "title": "x", "sources": ["file:docs/bank-api.md"]}))
    out["huge"] = result(await session.call_tool("memory_write", {
        "kind": "decision", "title": "A huge body", "sources": ["file:docs/bank-api.md"],
        "body": "word " * (2 * 1024 * 1024)}))
    try:
        await session.call_tool("no_such_tool", {})
        out["unknown_tool"] = "no error"
    except Exception as e:  # the SDK raises on a JSON-RPC error
        out["unknown_tool"] = type(e).__name__ + ": " + str(e)
    missing = await session.call_tool("memory_read", {})
    out["missing_arg"] = result(missing)
    mistyped = await session.call_tool("memory_search", {"query": 42})
    out["mistyped_arg"] = result(mistyped)
    # Still serving after all that.
    out["after"] = result(await session.call_tool("memory_recent", {"limit": 1}))
    return out


async def secret(session, init):
    return {
        "search": result(await session.call_tool("memory_search", {"query": "deploy token"})),
        "read": result(await session.call_tool("memory_read", {"target": "deploy-with-a-token"})),
        "context": result(await session.call_tool("memory_context", {})),
    }


async def advice(session, init):
    """What a refusal or a text tells the model to do: tools, not commands."""
    out = {}
    out["similar"] = result(await session.call_tool("memory_write", {
        "kind": "decision", "title": "Use SQLite statement caches", "sources": ["file:docs/bank-api.md"]}))
    out["control"] = result(await session.call_tool("memory_update", {
        "target": "export-monthly-csv", "title": "Export a monthly\u0007 CSV"}))
    out["rewrite"] = result(await session.call_tool("memory_update", {
        "target": "use-sqlite-statement-cache", "body": "Something else."}))
    out["context"] = result(await session.call_tool("memory_context", {}))
    out["bad_id"] = result(await session.call_tool("session_memory", {"action": "export", "id": "nope"}))
    out["missing"] = result(await session.call_tool("session_memory", {"action": "export", "id": "CMEM-20200101-000000"}))
    out["empty"] = result(await session.call_tool("session_memory", {"action": "import", "text": " "}))
    return out


async def drift(session, init):
    """What a model reads of a record whose cited file changed."""
    return {
        "search": result(await session.call_tool("memory_search", {"query": "cache"})),
        "context": result(await session.call_tool("memory_context", {})),
    }


async def race():
    async def one(_):
        async def steps(session, init):
            return result(await session.call_tool("memory_write", {
                "kind": "decision", "title": "Batch the bank sync",
                "sources": ["file:docs/bank-api.md"]}))
        return await session_do(steps)
    return {"results": await asyncio.gather(*[one(i) for i in range(4)])}


async def main():
    if SCENARIO == "race":
        out = await race()
    else:
        out = await session_do({"tools": tools, "happy": happy, "refused": refused, "secret": secret, "advice": advice, "drift": drift}[SCENARIO])
    print(json.dumps(out))


asyncio.run(main())
