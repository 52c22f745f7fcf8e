"""Load chip profiles by built-in name or from a YAML path.

Every validation error names the file, the field and what is allowed.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from nandlab.errors import ProfileError
from nandlab.profiles.model import Profile
from nandlab.yamlfile import parse_yaml_model, read_text_file

_BUILTIN_PACKAGE = "nandlab.profiles.builtin"


def builtin_names() -> list[str]:
    """Names of the built-in (virtual) profiles, sorted."""
    folder = resources.files(_BUILTIN_PACKAGE)
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def parse_profile(text: str, source: str) -> Profile:
    """Validate profile YAML text; `source` names it in errors."""
    return parse_yaml_model(text, source, Profile, "chip profile", ProfileError)


@lru_cache(maxsize=32)
def _load_builtin(name: str) -> Profile:
    text = resources.files(_BUILTIN_PACKAGE).joinpath(f"{name}.yaml").read_text()
    return parse_profile(text, f"built-in profile {name}")


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
        return parse_profile(read_text_file(path, "profile file", ProfileError), str(path))
    raise ProfileError(
        f"unknown chip profile '{key}': use one of {', '.join(builtin_names())} "
        "or a path to a profile YAML file"
    )
