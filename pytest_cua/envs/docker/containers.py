"""The containers of the Docker desktop environment: ``Box`` (one running container and the connection to its
executor), their names, waiting for a new one to be ready, and what could not be removed because its daemon
did not answer (``ORPHANS``, removed once that daemon answers again).
"""

from __future__ import annotations

import re
import time
from typing import Any

from pytest_cua.envs.docker.client import ExecutorClient, ExecutorError
from pytest_cua.observations import Element

HOME = "/root"
"""The home folder of the desktop's user in every image."""


def slug(text: str) -> str:
    """``text`` usable in container names and image tags (the labels keep it as it is)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "x"


def rename_quietly(container: Any, name: str) -> None:
    try:
        container.rename(name)
    except Exception:
        pass


# what close() could not remove because its daemon did not answer: (kind, id) by host url, removed at the next
# environment start on that host in this process
ORPHANS: dict[str, list[tuple[str, str]]] = {}


class Box:
    """One running container and the connection to its executor."""

    def __init__(self, container: Any, client: ExecutorClient, image: str, started_s: float) -> None:
        self.container = container
        self.client = client
        self.image = image
        self.started_s = started_s
        self.graph_driver: dict[str, Any] | None = None  # read once, for the fast diff
        # the elements of the last observation of this container, by id (an id resolves to its box)
        self.elements: dict[str, Element] = {}
        self.screen: tuple[int, int] = (1280, 800)

    def remove(self) -> bool:
        """Remove the container; False when the daemon did not take the request (it is down)."""
        import docker.errors

        self.client.close()
        try:
            self.container.remove(force=True, v=True)
        except docker.errors.NotFound:
            pass
        except Exception:
            return False
        return True


def wait_ready(client: ExecutorClient, deadline: float) -> None:
    """Poll the executor until the display answers and the window manager runs; bounded."""
    delay = 0.05
    while True:
        answer = client.request("ping", io_timeout=10)
        if answer.get("display") and answer.get("wm"):
            return
        if time.monotonic() > deadline:
            raise ExecutorError("ping", f"display or window manager not up: {answer}")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.5)


def remove_orphans(host_url: str, client: Any) -> None:
    """Remove what an earlier environment of this process could not remove from ``host_url`` (its daemon was
    down then); what still fails stays listed."""
    import docker.errors

    left = []
    for kind, ident in ORPHANS.pop(host_url, []):
        try:
            if kind == "container":
                client.api.remove_container(ident, force=True, v=True)
            else:
                client.api.remove_image(ident, force=True)
        except docker.errors.NotFound:
            pass
        except Exception:
            left.append((kind, ident))
    if left:
        ORPHANS.setdefault(host_url, []).extend(left)
