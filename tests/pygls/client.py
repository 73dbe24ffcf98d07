"""Drives `memlint server` with pygls's LanguageClient (PyPI), whose
lsprotocol types check every message's shape against the protocol's
specification: a response the server shapes wrongly fails to convert here.
Prints one JSON object summing up what the server answered.

Usage: client.py MEMLINT ROOT
"""

import asyncio
import json
import sys
from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

BIN, ROOT = sys.argv[1], Path(sys.argv[2]).resolve()
BROKEN = ("---\ntitle: 金額は整数で持つ新方式\nstatus: replaced\ndate: 2026-10-01\n"
          "sources:\n  - decision:use-float-amounts\n  - decision:use-float-amounts\n"
          "replaced_by: no-such-decision\ntgas: [x]\n---\n\nBody.\n")


def pos(line, character):
    return t.Position(line=line, character=character)


async def main():
    client = LanguageClient("memlint-tests", "1")
    got = asyncio.Queue()

    @client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: t.PublishDiagnosticsParams):
        got.put_nowait(params)

    await client.start_io(BIN, "server", cwd=str(ROOT))
    caps = t.ClientCapabilities(
        workspace=t.WorkspaceClientCapabilities(
            workspace_edit=t.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[t.ResourceOperationKind.Rename])))
    init = await client.initialize_async(
        t.InitializeParams(capabilities=caps, root_uri=ROOT.as_uri()))
    client.initialized(t.InitializedParams())
    out = {"server": init.server_info.name,
           "sync": int(init.capabilities.text_document_sync.change)}

    uri = (ROOT / "memory/decisions/new-money.md").as_uri()
    doc = t.TextDocumentIdentifier(uri=uri)
    client.text_document_did_open(t.DidOpenTextDocumentParams(
        text_document=t.TextDocumentItem(uri=uri, language_id="markdown", version=1,
                                         text=BROKEN)))
    # The first push may be for .memlint.yml (its problems, here none).
    published = await asyncio.wait_for(got.get(), 30)
    while published.uri != uri:
        published = await asyncio.wait_for(got.get(), 30)
    out["diagnostics"] = [
        [d.code, d.range.start.line, d.range.start.character, d.range.end.character,
         int(d.severity), d.code_description.href]
        for d in published.diagnostics]

    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=doc, range=t.Range(start=pos(0, 0), end=pos(12, 0)),
        context=t.CodeActionContext(diagnostics=published.diagnostics)))
    out["actions"] = sorted(a.title for a in actions)

    edits = await client.text_document_formatting_async(t.DocumentFormattingParams(
        text_document=doc, options=t.FormattingOptions(tab_size=2, insert_spaces=True)))
    out["formatted"] = edits[0].new_text if edits else None

    definition = await client.text_document_definition_async(t.DefinitionParams(
        text_document=doc, position=pos(5, 15)))
    out["definition"] = definition.uri[len(ROOT.as_uri()) + 1:]
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=doc, position=pos(5, 15)))
    out["hover"] = hover.contents.value
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=doc, position=pos(5, 15),
        context=t.ReferenceContext(include_declaration=False)))
    out["references"] = sorted(r.uri[len(ROOT.as_uri()) + 1:] for r in refs)
    completion = await client.text_document_completion_async(t.CompletionParams(
        text_document=doc, position=pos(2, 8)))
    out["completion"] = [i.label for i in completion.items]
    rename = await client.text_document_rename_async(t.RenameParams(
        text_document=doc, position=pos(5, 15), new_name="use-floats"))
    out["rename"] = [type(c).__name__ for c in rename.document_changes]

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    print(json.dumps(out, ensure_ascii=False))


asyncio.run(main())
