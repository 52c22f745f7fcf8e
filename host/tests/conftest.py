"""Every host test gets its own nandlab data folder (die images, bad-block tables)."""

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    folder = tmp_path_factory.mktemp("nandlab-data")
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(folder))
    return folder
