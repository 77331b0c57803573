"""The test command runs the same on any machine: the setup installs what the tests use,
and no test depends on how fast the machine is."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CI = REPO / ".ci"
INSTALL_TOOLS = CI / "install-system-tools"

# Reading a clock in a test makes its verdict depend on the machine's load.
_CLOCKS = {"time", "monotonic", "perf_counter", "process_time", "monotonic_ns", "perf_counter_ns"}


def _clock_reads(source: str) -> list[int]:
    """Lines that read the wall clock: `time.<clock>(...)` or a clock imported from time."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "time"
            and node.attr in _CLOCKS
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "time":
            lines.extend(node.lineno for alias in node.names if alias.name in _CLOCKS)
    return lines


# The hostile-input campaign is a tool run by hand (`python -m tests.hostile.campaign`),
# never by pytest; its hang watchdog is the one place under tests/ that needs a clock.
_CAMPAIGN = REPO / "tests" / "hostile"


def test_no_test_reads_the_wall_clock() -> None:
    found = {
        path.relative_to(REPO).as_posix(): lines
        for path in sorted((REPO / "tests").rglob("*.py"))
        if _CAMPAIGN not in path.parents
        and (lines := _clock_reads(path.read_text(encoding="utf-8")))
    }
    assert found == {}, "speed is measured in benchmarks/, not asserted in tests"


def test_the_clock_check_sees_clock_reads() -> None:
    source = "import time\nfrom time import perf_counter\nstart = time.monotonic()\n"
    assert _clock_reads(source) == [2, 3]
    assert _clock_reads("import time\ntime.sleep(1)\n") == []


def _tools_in_script() -> set[str]:
    text = INSTALL_TOOLS.read_text(encoding="utf-8")
    match = re.search(r"^tools=\(([^)]*)\)", text, re.M)
    assert match, "install-system-tools lost its tools=(...) list"
    return {entry.split(":", 1)[0] for entry in match.group(1).split()}


def _tools_the_tests_look_for() -> set[str]:
    found: set[str] = set()
    for path in (REPO / "tests").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        found.update(re.findall(r"shutil\.which\(\"([^\"]+)\"\)", source))
    return found


def test_setup_installs_every_tool_the_tests_look_for() -> None:
    wanted = _tools_the_tests_look_for()
    assert {"g++", "ninja"} <= wanted  # the search itself finds something
    # The tests run the system cmake and git by name as well; bash runs the setup itself.
    assert (wanted - {"bash"}) | {"cmake", "git"} <= _tools_in_script()


def test_readme_test_command_and_ci_run_the_setup() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if "python -m pytest -q" in line)
    assert command.startswith("bash .ci/install-system-tools && ")
    assert "bash .ci/install-system-tools" in (CI / "run").read_text(encoding="utf-8")


def test_setup_names_the_packages_where_it_cannot_install(tmp_path: Path) -> None:
    # A PATH with none of the tools and no apt-get: it must say what to install and fail.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("id", "sort"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    bash = shutil.which("bash")
    assert bash is not None
    result = subprocess.run(
        [bash, str(INSTALL_TOOLS)],
        env={"PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == (
        "install these first (Debian package names): binutils cmake g++ gcc git llvm make "
        "ninja-build python3 util-linux\n"
    )


def test_readme_downloads_leave_the_checkout_clean() -> None:
    # "From nothing to a first finding" downloads wheels and CMakes into the checkout.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## From nothing to a first finding", 1)[1].split("\n## ", 1)[0]
    targets = re.findall(r"(?:-d|--target) ([\w.-]+)", section)
    assert sorted(targets) == ["cmake-3.24", "cmake-4.4", "wheels"]
    git = shutil.which("git")
    assert git is not None
    for target in targets:
        ignored = subprocess.run(
            [git, "-C", str(REPO), "check-ignore", "-q", f"{target}/some-download"], check=False
        )
        assert ignored.returncode == 0, f"{target}/ would be left untracked in the checkout"
