"""`nandlab serve`: the dashboard (nandlab.serve) over a folder of runs."""

from __future__ import annotations

import socket
from pathlib import Path

import click

from nandlab.errors import UsageError

LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
WILDCARDS = ("0.0.0.0", "::")
BACKLOG = 64
# the import names of the serve extra's packages (host/pyproject.toml) and what they bring
SERVE_EXTRA = ("fastapi", "starlette", "uvicorn", "jinja2", "plotly")


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so a taken port is a clear usage error."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM
        )[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)  # before the address is printed: a client may connect at once
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; any other than loopback requires the token.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port, printed at start).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True,
              help="Folder holding the run folders (the --out of `nandlab run`).")
@click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Read the access token from this file (first line) instead of making one; "
              "given on loopback too, the token is then required there as well.")
def serve(host: str, port: int, out: Path, token_file: Path | None) -> None:
    """Serve the dashboard: runs, live progress, plots, ledger.

    The run catalogue, live progress, plots, the chip ledger, and campaigns started,
    stopped and resumed from the page (as `nandlab run` / `resume` processes, which keep
    running when the dashboard stops). Ctrl-C stops the server.

    On a loopback address anyone on this machine may use it; on any other address each
    request must carry the token, printed at start in the address to open.

    Examples:

      nandlab serve --out runs

      nandlab serve --host 0.0.0.0 --port 8080 --token-file ~/.nandlab-token
    """
    try:
        import uvicorn

        from nandlab.serve.app import create_app
        from nandlab.serve.auth import is_loopback, new_token, read_token_file
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in SERVE_EXTRA:
            raise
        raise UsageError(
            f"the dashboard needs the serve extra ({exc.name} is missing): "
            "pip install 'nandlab[serve]'"
        ) from None
    loopback = is_loopback(host)
    token = read_token_file(token_file) if token_file else None if loopback else new_token()
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    app = create_app(out, token=token, loopback_hosts=LOOPBACK_HOSTS if loopback else None)
    # an address to open from another machine: this host's name for "every interface"
    shown = socket.getfqdn() if host in WILDCARDS else f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{bound}/" + (f"?token={token}" if token else "")
    click.echo(f"nandlab dashboard on {address} (runs in {out}); Ctrl-C stops it")
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)
    )
    server.run(sockets=[sock])

