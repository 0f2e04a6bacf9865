"""palaestra as a NeMo Gym resource server: ``POST /verify`` on ``palaestra serve``.

NeMo Gym's agent servers send a resource server's ``/verify`` the dataset row's fields plus the
policy's ``response`` (an OpenAI Responses-API object) and read ``reward`` from the reply, which
echoes the request. ``palaestra serve`` answers that route; put the palaestra row's
``extra_info`` (or its task record as ``task``) in each NeMo Gym dataset row, and point the
resource server config at the server's URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from palaestra.core import Task
from palaestra.rows import task_from_record


def response_text(response: Any) -> str:
    """The assistant's text in a Responses-API object (its last output message's text parts)."""
    if isinstance(response, str):
        return response
    if not isinstance(response, Mapping):
        raise ValueError("'response' must be a Responses-API object with an 'output' list")
    texts = []
    for item in response.get("output") or []:
        if isinstance(item, Mapping) and item.get("type") == "message":
            parts = item.get("content") or []
            texts = [
                p.get("text", "") for p in parts if isinstance(p, Mapping) and p.get("type") == "output_text"
            ]
    return "".join(texts)


def parse_verify_request(body: Mapping[str, Any]) -> tuple[Task, str]:
    """The task and the response text of a NeMo Gym verify request."""
    record = body.get("extra_info", body.get("task"))
    if record is None:
        raise ValueError("the verify request needs the palaestra row's 'extra_info' (or 'task')")
    return task_from_record(record), response_text(body.get("response"))
