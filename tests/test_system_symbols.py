"""What the well-known system libraries define, per tag: the shipped tables read right.

The tables (`schemas/system-libraries/`) are generated from real Debian packages by
`.ci/system-libraries`; these tests pin the facts the symbol rules rest on.
"""

from __future__ import annotations

import json

import pytest
from shiplint.artifacts.system_symbols import SystemLibraries, SystemLibrary, system_libraries
from shiplint.resources import data_dir


def _get(table: SystemLibraries, soname: str) -> SystemLibrary:
    library = table.get(soname)
    assert library is not None, soname
    return library


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_before_glibc_2_34_pthread_create_is_libpthreads_alone(arch: str) -> None:
    table = system_libraries(f"manylinux_2_28_{arch}", arch)
    assert table is not None and table.basis.startswith("glibc 2.31 layout")
    pthread, libc = table.get("libpthread.so.0"), table.get("libc.so.6")
    assert pthread is not None and libc is not None
    assert "pthread_create" in pthread.names and "pthread_create" not in libc.names
    assert "libc.so.6" in pthread.needed
    assert "malloc" in libc.names


def test_from_glibc_2_34_libc_defines_it() -> None:
    table = system_libraries("manylinux_2_34_x86_64", "x86_64")
    assert table is not None and table.basis.startswith("glibc 2.36 layout")
    libc = table.get("libc.so.6")
    assert libc is not None and "pthread_create" in libc.names


def test_a_name_newer_than_the_tag_is_not_defined_there() -> None:
    # pthread_cond_clockwait is GLIBC_2.30; __throw_bad_array_new_length GLIBCXX_3.4.29.
    old = system_libraries("manylinux_2_28_x86_64", "x86_64")
    new = system_libraries("manylinux_2_31_x86_64", "x86_64")
    assert old is not None and new is not None
    assert "pthread_cond_clockwait" not in _get(old, "libpthread.so.0").names
    assert "pthread_cond_clockwait" in _get(new, "libpthread.so.0").names
    throw = "_ZSt28__throw_bad_array_new_lengthv"
    assert throw not in _get(old, "libstdc++.so.6").names
    untagged = system_libraries(None, "x86_64")
    assert untagged is not None and throw in _get(untagged, "libstdc++.so.6").names


def test_a_compressed_tag_set_promises_what_all_its_tags_do() -> None:
    both = system_libraries("manylinux_2_17_x86_64.manylinux_2_28_x86_64", "x86_64")
    floor = system_libraries("manylinux_2_17_x86_64", "x86_64")
    assert both is not None and floor is not None
    assert _get(both, "libc.so.6").names == _get(floor, "libc.so.6").names


@pytest.mark.parametrize(
    ("tag", "arch"),
    [("musllinux_1_2_x86_64", "x86_64"), ("manylinux_2_28_ppc64le", "ppc64le")],
)
def test_no_table_means_opaque(tag: str, arch: str) -> None:
    assert system_libraries(tag, arch) is None


def test_every_table_names_its_source_and_generator() -> None:
    folder = data_dir("schemas") / "system-libraries"
    stems = set()
    for path in sorted(folder.glob("*.json")):
        document = json.loads(path.read_text("utf-8"))
        assert document["generated_by"] == ".ci/system-libraries"
        assert document["source"].startswith("Debian ")
        assert path.stem.endswith(f"-{document['arch']}")
        stems.add(path.stem.removesuffix(f"-{document['arch']}"))
    assert stems == {"glibc-2.31", "glibc-2.36", "gcc-12", "zlib-1.2.13"}
