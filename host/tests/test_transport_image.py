"""Die images are verified before use: a damaged file is named, never a fresh die; files a
process saved itself under a lock it still holds are not hashed again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nandlab.errors import DamagedFileError, RangeError
from nandlab.locks import acquire
from nandlab.ops import Program
from nandlab.transport import image as image_module
from nandlab.transport import open_bench

URL = "sim://slc-search?seed=8"


def _folder(state_dir: Path) -> Path:
    return state_dir / "sim" / "slc-search-seed8"


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path))
    with open_bench(URL + "&fresh=1") as bench:
        bench.run(Program().ce(0).delay(1000))
    return tmp_path


def test_manifest_names_every_file_with_its_sha256(state_dir: Path) -> None:
    folder = _folder(state_dir)
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, digest in image_module.image_files(manifest):
        assert image_module.sha256_file(folder / name) == digest
    manifest["now_ns"] += 1  # an edit the self-checksum catches
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DamagedFileError, match="manifest.json fails its checksum.*--fresh"):
        open_bench(URL)


@pytest.mark.parametrize("kind", ["npz", "json"])
def test_a_damaged_die_file_is_named_and_kept(state_dir: Path, kind: str) -> None:
    (path,) = _folder(state_dir).glob(f"die0.*.{kind}")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedFileError, match=f"{path.name} fails its sha256"):
        open_bench(URL)
    assert path.read_bytes() == bytes(data)  # not replaced by a fresh die
    with open_bench(URL + "&fresh=1") as bench:  # the way out the message gives
        assert bench.now_ns == 0


def test_own_files_are_not_hashed_again_while_the_lock_is_held(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hashed: list[str] = []
    real = image_module.sha256_file

    def counting(path: Path) -> str:
        hashed.append(path.name)
        return real(path)

    monkeypatch.setattr(image_module, "sha256_file", counting)
    folder = _folder(state_dir)
    with acquire(folder / "lock", "chip"):
        open_bench(URL).close()  # verified (saved by a hold that ended), then saved
        hashed.clear()
        open_bench(URL).close()
        assert [n for n in hashed if n.endswith(".npz")] == ["die0.g3.npz"]  # the save only
    hashed.clear()
    open_bench(URL).close()  # a new hold: everything is verified again
    assert "die0.g3.npz" in hashed


def test_fewer_dies_than_the_image_holds_is_refused(state_dir: Path) -> None:
    with open_bench("sim://slc-search?seed=9&dies=2") as bench:
        bench.run(Program().ce(1).delay(1000))
    with pytest.raises(RangeError, match="holds 2 dies: open it with dies=2"):
        open_bench("sim://slc-search?seed=9")  # saving one die would lose the other
    with open_bench("sim://slc-search?seed=9&dies=2") as bench:
        assert bench.now_ns == 1000
