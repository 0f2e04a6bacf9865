"""What the HTTP servers share (``palaestra serve`` and the OpenEnv app; needs FastAPI)."""

from __future__ import annotations

import json
from typing import Any

from fastapi import HTTPException, Request


async def json_body(request: Request) -> dict[str, Any]:
    """The request body as a JSON object, whatever its ``Content-Type`` says: ``curl -d`` sends
    JSON labelled as a form, and a body that reads as JSON is taken as JSON. An empty body is
    ``{}``; anything else that is not a JSON object is one clear 400."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HTTPException(status_code=400, detail=f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise HTTPException(status_code=400, detail="the request body must be a JSON object")
    return body
