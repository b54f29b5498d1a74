"""The search service: `pegsearch serve`, an HTTP API and a dashboard over a runs root.

A search is a run directory under the root, addressed by its folder name (an id the server makes,
or the name the CLI gave it); what the service adds is a small queue record per submitted search
(`records`), worker processes that run the driver outside the request loop (`jobs`, `worker`), the
JSON documents answered (`views`), the FastAPI application (`app`) and the static dashboard.
"""
