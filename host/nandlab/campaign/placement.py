"""Which host of a Ray cluster holds which board: the placement file.

A real bench is a board on one host's USB or PCIe bus, so the worker that drives it
must run there. The file (YAML) names the hosts by their Ray node address and each
board by its bench URL (or the URL's start)::

    hosts:
      lab-a: 10.0.0.11          # the address `ray start` reports on that host
      lab-b: 10.0.0.12
    benches:
      "ftdi://ftdi:2232h:FT5XK1/1": lab-a
      "xdma:///dev/xdma0": lab-b

A bench the file does not name runs on any host (virtual benches need none).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from nandlab.errors import UsageError


@dataclass(frozen=True)
class Placement:
    hosts: dict[str, str]  # host name -> Ray node address
    benches: dict[str, str]  # bench URL (or its start) -> host name

    @classmethod
    def load(cls, path: Path) -> Placement:
        """The placement file at `path`; UsageError naming the file and the field."""
        try:
            doc = yaml.safe_load(Path(path).read_text())
        except (OSError, yaml.YAMLError) as exc:
            raise UsageError(f"{path}: cannot read the placement file ({exc})") from None
        if not isinstance(doc, dict) or set(doc) - {"hosts", "benches"}:
            raise UsageError(f"{path}: a placement file has 'hosts' and 'benches' only")
        hosts, benches = doc.get("hosts") or {}, doc.get("benches") or {}
        if not isinstance(hosts, dict) or not isinstance(benches, dict):
            raise UsageError(f"{path}: 'hosts' and 'benches' are mappings")
        for url, host in benches.items():
            if host not in hosts:
                raise UsageError(
                    f"{path}: benches.{url}: host {host!r} is not under hosts "
                    f"({', '.join(map(str, hosts)) or 'none'})"
                )
        return cls({str(k): str(v) for k, v in hosts.items()},
                   {str(k): str(v) for k, v in benches.items()})

    def host_of(self, url: str) -> str | None:
        """The host holding the bench `url` (the longest matching entry), or None."""
        hits = [u for u in self.benches if url.startswith(u)]
        return self.benches[max(hits, key=len)] if hits else None

    def actor_options(self, url: str) -> dict[str, Any]:
        """Ray actor options that pin the worker of bench `url` to its host."""
        host = self.host_of(url)
        if host is None:
            return {}
        return {"resources": {f"node:{self.hosts[host]}": 0.001}}
