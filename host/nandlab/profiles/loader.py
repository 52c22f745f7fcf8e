"""Load chip profiles by built-in name or from a YAML path.

Every validation error names the file, the field and what is allowed.

A validated profile is kept in nandlab's cache folder (`profile_cache_dir`, not the data
folder: parsing a URL or a campaign must leave that untouched), as a pickle named by a
digest of the YAML text, the profile schema's source and pydantic's version. A later
process loads that file instead of parsing the YAML and building the validators (about
40 ms of every command's start: `nandlab info sim://...` must start in under 0.3 s,
issue 16). A cache file that does not load is rebuilt; any change of the text or of the
schema names another file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from functools import lru_cache
from importlib import resources
from pathlib import Path

import pydantic

from nandlab.errors import ProfileError
from nandlab.paths import cache_root
from nandlab.profiles import coxpm_model, interfaces_model, model, physics_model, search_model
from nandlab.profiles.model import Profile

_BUILTIN_PACKAGE = "nandlab.profiles.builtin"
_SCHEMA_MODULES = (model, physics_model, interfaces_model, coxpm_model, search_model)


def builtin_names() -> list[str]:
    """Names of the built-in (virtual) profiles, sorted."""
    folder = resources.files(_BUILTIN_PACKAGE)
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def parse_profile(text: str, source: str) -> Profile:
    """Validate profile YAML text; `source` names it in errors."""
    # yaml and the validators load only on a cache miss (cold start)
    from nandlab.yamlfile import parse_yaml_model

    return parse_yaml_model(text, source, Profile, "chip profile", ProfileError)


def profile_cache_dir() -> Path:
    """Folder of the validated-profile cache ($NANDLAB_CACHE_DIR or the user cache dir)."""
    return cache_root() / "profiles"


@lru_cache(maxsize=1)
def _schema_digest() -> bytes:
    """Digest of what decides how a text validates: the schema modules' source and pydantic."""
    h = hashlib.sha256(pydantic.VERSION.encode())
    for module in _SCHEMA_MODULES:
        h.update(Path(str(module.__file__)).read_bytes())
    return h.digest()


def _cached_profile(text: str, source: str) -> Profile:
    """`parse_profile(text, source)`, through the cache folder."""
    key = hashlib.sha256(_schema_digest() + text.encode()).hexdigest()[:32]
    path = profile_cache_dir() / f"{key}.pickle"
    try:
        cached = pickle.loads(path.read_bytes())
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError):
        cached = None  # absent, torn or from another layout: rebuilt below
    if isinstance(cached, Profile):
        return cached
    profile = parse_profile(text, source)
    _store(path, pickle.dumps(profile, protocol=pickle.HIGHEST_PROTOCOL))
    return profile


def _store(path: Path, data: bytes) -> None:
    """Write a cache file atomically (no fsync: a torn file is only a miss); a cache folder
    that cannot be written leaves the cache empty, never fails the load."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):  # no folder, or it went read-only
            tmp.unlink(missing_ok=True)


@lru_cache(maxsize=32)
def _load_builtin(name: str) -> Profile:
    text = resources.files(_BUILTIN_PACKAGE).joinpath(f"{name}.yaml").read_text()
    return _cached_profile(text, f"built-in profile {name}")


def load_profile(name_or_path: str | Path) -> Profile:
    """Return a built-in profile by name, or a user profile from a YAML file path."""
    key = str(name_or_path)
    if key in builtin_names():
        return _load_builtin(key)
    path = Path(key)
    try:
        exists, is_file = path.exists(), path.is_file()
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte: not a file name
        raise ProfileError(
            f"profile '{key[:80]}' is neither a built-in name nor a file: {exc}"
        ) from None
    if path.suffix in (".yaml", ".yml") or exists:
        if not is_file:
            raise ProfileError(f"profile file {path} does not exist")
        from nandlab.yamlfile import read_text_file

        return _cached_profile(read_text_file(path, "profile file", ProfileError), str(path))
    raise ProfileError(
        f"unknown chip profile '{key}': use one of {', '.join(builtin_names())} "
        "or a path to a profile YAML file"
    )
