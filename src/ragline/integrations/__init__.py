"""Framework adapters, each a thin layer over ragline's search (the library's
``Engine`` or the REST ``Client``), installed as extras:

- ``ragline.integrations.langchain.RaglineRetriever`` (``pip install 'ragline[langchain]'``)
- ``ragline.integrations.llamaindex.RaglineRetriever`` (``pip install 'ragline[llamaindex]'``)

Both return their framework's own types with ragline's score, source, page, title,
section and ids in the metadata (the document's own metadata under
``document_metadata``, so a user key never overwrites ours)."""
