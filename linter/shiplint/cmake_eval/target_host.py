"""What a config asks of the host, answered for the platform the artifact is for.

A config may ask the machine it runs on, not CMake: ExecuTorch's configs 0.5-1.4
run `python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"`
and look for `_portable_lib<suffix>`. Evaluated on a Linux host, a macOS wheel's
config would get the Linux suffix (and the host interpreter's version) and find
nothing, which is what no consumer of that wheel sees. So the evaluation's PATH
starts with a directory of stand-ins:

- `python3` and `python` run the real interpreter (the one PATH gives, so whatever
  else the config asks of Python is answered as before) with `sysconfig`'s
  platform variables (EXT_SUFFIX, SOABI, MULTIARCH, SHLIB_SUFFIX, EXE,
  py_version_nodot...), `sysconfig.get_platform()`, `platform.system()`,
  `platform.machine()` and `platform.uname()` answering for the artifact's platform
  and the interpreter its wheel tag names (cp311: 3.11; none: the real one's);
- `uname` answers `-s`/`-m`/`-p` (alone or together) as the platform's own does,
  for Linux and macOS when that is not the host's own platform (Windows has none).

Within one CMake run, `python3 -c` with a question about the interpreter only (the
sysconfig one above) is answered again without starting Python: python_memo.py says
exactly when.

What a stand-in cannot answer for the platform (a Python command line it does not
take apart, another `uname` question, `uname` for Windows) is answered by the real
program, and recorded: the evaluation then says so once (SL127, info), because that
answer is the host's. The stand-ins hold nothing of one run (they note into the
run's HOME), so they are keyed by what they are (replay.py) and can live outside the
run's directory when its file system lets no program run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform as host
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from shiplint.cmake_eval import python_memo
from shiplint.fastclass import dataclass
from shiplint.platforms import Platform, normalise_arch

# Where a stand-in records that the host answered: in the run's HOME (run.py makes it
# inside the run's directory), so the stand-ins hold nothing of one run and can live
# outside it; replay.py keeps the file with the run's results.
NOTES = ".shiplint-host-answers.jsonl"


@dataclass(frozen=True)
class TargetHost:
    """The machine a consumer of the artifact has: its platform, and the Python the
    wheel is built for ((3, 11) from `cp311`; None: whichever the host has)."""

    platform: Platform
    python: tuple[int, int] | None = None
    # A wheel's platform tag (`macosx_12_0_arm64`): the macOS version get_platform names.
    platform_tag: str | None = None


def wheel_python(label: str) -> tuple[int, int] | None:
    """The CPython version a wheel's file name is tagged for (`...-cp311-cp311-...whl`)."""
    if not label.endswith(".whl"):
        return None
    parts = label[: -len(".whl")].split("-")
    if len(parts) < 5:
        return None
    for tag in parts[-3].split("."):
        if tag.startswith("cp3") and tag[3:].isdigit():
            return 3, int(tag[3:])
    return None


def _machine(platform: Platform) -> str:
    arch = platform.arch or "x86_64"
    if platform.os == "windows":
        return {"x86_64": "AMD64", "aarch64": "ARM64", "x86": "x86"}.get(arch, arch.upper())
    if platform.os == "macos":
        return "arm64" if arch == "aarch64" else arch
    return arch


def _answers(target: TargetHost) -> dict[str, object]:
    """What the stand-in Python says, `{nodot}`/`{dot}` standing for its version."""
    platform = target.platform
    arch = platform.arch or "x86_64"
    machine = _machine(platform)
    variables: dict[str, str | None]
    if platform.os == "windows":
        win = {"x86_64": "win_amd64", "aarch64": "win_arm64", "x86": "win32"}.get(arch, arch)
        variables = {
            "EXT_SUFFIX": f".cp{{nodot}}-{win}.pyd",
            "SOABI": None,
            "MULTIARCH": None,
            "SHLIB_SUFFIX": None,
            "EXE": ".exe",
        }
        system = "Windows"
        where = {"win_amd64": "win-amd64", "win_arm64": "win-arm64"}.get(win, "win32")
    elif platform.os == "macos":
        variables = {
            "EXT_SUFFIX": ".cpython-{nodot}-darwin.so",
            "SOABI": "cpython-{nodot}-darwin",
            "MULTIARCH": "darwin",
            "SHLIB_SUFFIX": ".so",
            "EXE": "",
        }
        system = "Darwin"
        where = f"macosx-{_macos_version(target.platform_tag)}-{machine}"
    else:
        triple = f"{arch}-linux-gnu"
        variables = {
            "EXT_SUFFIX": f".cpython-{{nodot}}-{triple}.so",
            "SOABI": f"cpython-{{nodot}}-{triple}",
            "MULTIARCH": triple,
            "SHLIB_SUFFIX": ".so",
            "EXE": "",
        }
        system = "Linux"
        where = f"linux-{arch}"
    variables |= {"py_version_nodot": "{nodot}", "py_version_short": "{dot}", "VERSION": "{dot}"}
    return {
        "python": list(target.python) if target.python else None,
        "variables": variables,
        "platform": where,
        "system": system,
        "machine": machine,
    }


def _macos_version(tag: str | None) -> str:
    """`macosx_12_0_arm64` -> `12.0`; 11.0 when the tag does not say."""
    if tag and tag.startswith("macosx_"):
        parts = tag.split("_")
        if len(parts) >= 4 and parts[1].isdigit() and parts[2].isdigit():
            return f"{parts[1]}.{parts[2]}"
    return "11.0"


# Run by the real interpreter in place of it: patches the platform's answers in, then
# runs the command line as python would. Kept to what python's own CLI does for -c,
# -m, a script and stdin; anything else runs unpatched and is noted.
_PYTHON = r"""
import json, os, sys
ANSWERS = json.loads(@ANSWERS@)
NOTES = os.path.join(os.environ.get("HOME", "."), @NOTES@)
REAL = @REAL@

def note(what):
    try:
        with open(NOTES, "a", encoding="utf-8") as stream:
            stream.write(json.dumps({"program": "python", "asked": what}) + "\n")
    except OSError:
        pass

def unpatched(args):
    note(" ".join(args))
    os.execv(REAL, [REAL, *args])

def patch():
    import platform, sysconfig
    version = tuple(ANSWERS["python"] or sys.version_info[:2])
    fill = {"nodot": f"{version[0]}{version[1]}", "dot": f"{version[0]}.{version[1]}"}
    ours = {k: (v.format(**fill) if isinstance(v, str) else v)
            for k, v in ANSWERS["variables"].items()}
    real_vars = sysconfig.get_config_vars
    def get_config_vars(*names):
        values = dict(real_vars())
        values.update(ours)
        return [values.get(n) for n in names] if names else values
    sysconfig.get_config_vars = get_config_vars
    sysconfig.get_config_var = lambda name: get_config_vars().get(name)
    sysconfig.get_platform = lambda: ANSWERS["platform"]
    platform.system = lambda: ANSWERS["system"]
    platform.machine = lambda: ANSWERS["machine"]
    real_uname = platform.uname
    platform.uname = lambda: real_uname()._replace(
        system=ANSWERS["system"], machine=ANSWERS["machine"])

def main(args):
    rest = list(args)
    # Options python takes without changing what runs; -W/-X take a value.
    while rest and rest[0] in ("-E", "-s", "-S", "-I", "-u", "-B", "-O", "-OO", "-q",
                               "-b", "-bb", "-P", "-W", "-X", "-R", "-d", "-v"):
        if rest.pop(0) in ("-W", "-X"):
            if not rest:
                unpatched(args)
            rest.pop(0)
    # sys.path[0] is this script's directory: as python sets it, the current one for
    # -c, -m and stdin, the script's own for a script.
    if rest and rest[0] == "-c" and len(rest) >= 2:
        sys.path[0] = ""
        sys.argv = ["-c", *rest[2:]]
        patch()
        if MEMO is not None and None not in (sys.stdout, sys.stderr) and MEMO["pure"](rest[1]):
            remembered(rest[1])
        else:
            code = compile(rest[1], "<string>", "exec")
            exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
    elif rest and rest[0] == "-m" and len(rest) >= 2:
        sys.path[0] = os.getcwd()
        sys.argv = [rest[1], *rest[2:]]
        patch()
        import runpy
        runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
    elif rest and not rest[0].startswith("-"):
        sys.path[0] = os.path.dirname(os.path.abspath(rest[0]))
        sys.argv = rest
        patch()
        import runpy
        runpy.run_path(rest[0], run_name="__main__")
    elif not rest or rest == ["-"]:
        sys.path[0] = ""
        sys.argv = [""]
        patch()
        exec(compile(sys.stdin.read(), "<stdin>", "exec"),
             {"__name__": "__main__", "__builtins__": __builtins__})
    else:
        unpatched(args)

def remembered(source):
    # Run as above, the streams copied as they pass (a warning of the compiler's too);
    # kept only when it ended as a pure question must (python_memo.py).
    out, err = MEMO["Tee"](sys.stdout), MEMO["Tee"](sys.stderr)
    sys.stdout, sys.stderr = out, err
    try:
        code = compile(source, "<string>", "exec")
        exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
    finally:
        sys.stdout, sys.stderr = out.stream, err.stream
    try:
        out.stream.flush()
        output = "".join(out.written).encode(out.stream.encoding, out.stream.errors)
    except (OSError, ValueError, LookupError):
        return
    env = os.environ
    if err.written or not MEMO["loaded_from_elsewhere"](
            os.getcwd(), (env.get("HOME", ""), env.get("TMPDIR", ""))):
        return
    import site
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else ""
    if user_site and os.path.exists(user_site):
        return
    MEMO["record"](MEMO_DIR, KEY, SCRIPT, ARGS, output, user_site)

# The stand-in gives a key when the question may be one to remember (`-c` first, stdin
# /dev/null, the run keeping answers): the memo's code is loaded now, before the
# current directory is put on sys.path for the config's code.
KEY = sys.argv[1]
ARGS = [os.fsencode(arg) for arg in sys.argv[2:]]  # as given (main sets sys.argv)
SCRIPT = os.fsencode(sys.argv[0])  # which stand-in: python and python3 run other programs
MEMO_DIR = os.path.join(os.environ.get("HOME", "."), @MEMO@)
MEMO = None
if (KEY != "-" and sys.argv[2:3] == ["-c"] and os.path.isdir(MEMO_DIR)):
    MEMO = {"__name__": "shiplint_python_memo"}
    exec(compile(@MEMO_SOURCE@, "python_memo.py", "exec"), MEMO)
    if not (MEMO["quiet_environment"](os.environ) and MEMO["stdin_is_null"]()):
        MEMO = None
main(sys.argv[2:])
"""

_MEMO_SOURCE = Path(python_memo.__file__).read_text(encoding="utf-8")

# Asks for a remembered answer (python_memo.py) where one may be kept, with a key of
# the whole question; then the real interpreter, given the key, answers (and keeps).
_PYTHON_SH = """#!/bin/sh
# shiplint: @NAME@ answering for the artifact's platform (see cmake_eval/target_host.py)
# Its variables are none of the environment it was given, or it keeps nothing: a shell
# exports a change to a variable it imported, and Python would be given that.
if [ "$1" = -c ] && [ -z "${_shiplint_m+x}${_shiplint_q+x}${_shiplint_f+x}${_shiplint_l+x}" ] &&
   [ -z "${_shiplint_r+x}${_shiplint_cwd+x}${_shiplint_ls+x}${_shiplint_env+x}${_shiplint_s+x}" ] &&
   [ -d "$HOME/@MEMO@" ] && [ /dev/stdin -ef /dev/null ] &&
   [ -e /dev/stdout ] && [ -e /dev/stderr ]; then
  # The question but its arguments, with no program started: the physical working
  # directory, the names in it, and what a program started from here is given (export
  # -p: the exported variables, quoted; the resource limits, soft and hard).
  _shiplint_m="$HOME/@MEMO@"
  _shiplint_q="$_shiplint_m/question.$$"
  _shiplint_s="${0%/*}/@NAME@.py"
  _shiplint_read() {
    _shiplint_r=
    while IFS= read -r _shiplint_l; do
      _shiplint_r="$_shiplint_r$_shiplint_l
"
    done < "$1"
  }
  if pwd -P > "$_shiplint_q.cwd" && { export -p; ulimit -a; ulimit -H -a; } > "$_shiplint_q.env" &&
     { for _shiplint_f in * .*; do printf '%s/' "$_shiplint_f"; done; echo; } > "$_shiplint_q.ls"
  then
    _shiplint_read "$_shiplint_q.cwd"; _shiplint_cwd="$_shiplint_r"
    _shiplint_read "$_shiplint_q.ls"; _shiplint_ls="$_shiplint_r"
    _shiplint_read "$_shiplint_q.env"; _shiplint_env="$_shiplint_r"
    # Each kept answer ends the script when its question is this one.
    for _shiplint_f in "$_shiplint_m"/answer.*; do
      if [ -f "$_shiplint_f" ]; then
        . "$_shiplint_f"
      fi
    done
    exec "@REAL@" "$_shiplint_s" "$_shiplint_q" "$@"
  fi
fi
exec "@REAL@" "${0%/*}/@NAME@.py" - "$@"
"""


def _python_sh(name: str, real: str) -> str:
    """The stand-in `name`, running `real` unless it kept the answer."""
    return (
        _PYTHON_SH.replace("@NAME@", name)
        .replace("@MEMO@", python_memo.MEMO)
        .replace("@REAL@", real)
    )


_UNAME = """#!/bin/sh
# shiplint: uname answering for @PLATFORM@ (see cmake_eval/target_host.py)
case "$*" in
@KNOWN@  *)
    printf '{"program": "uname", "asked": "%s"}\\n' "$*" >> "$HOME/@NOTES@" 2>/dev/null
    exec "@REAL@" "$@" ;;
esac
"""


def write_stand_ins(directory: Path, target: TargetHost) -> Path:
    """The stand-ins for `target` in `directory` (made); the directory to put first on the
    run's PATH. A program the host does not have is given no stand-in: the config finds
    none, as on the host."""
    directory.mkdir(parents=True, exist_ok=True)
    path = os.environ.get("PATH", "")
    answers = json.dumps(_answers(target))
    for name in ("python3", "python"):
        real = shutil.which(name, path=path)
        if real is None:
            continue
        script = directory / f"{name}.py"
        script.write_text(
            _PYTHON.replace("@ANSWERS@", repr(answers))
            .replace("@NOTES@", repr(NOTES))
            .replace("@REAL@", repr(real))
            .replace("@MEMO@", repr(python_memo.MEMO))
            .replace("@MEMO_SOURCE@", repr(_MEMO_SOURCE)),
            encoding="utf-8",
        )
        # The real interpreter runs the script with the config's arguments.
        # (Found beside itself: nothing of the directory's own path is in the stand-ins.)
        _executable(directory / name, _python_sh(name, real))
    real_uname = shutil.which("uname", path=path)
    # On the platform itself the real uname is the platform's own answer.
    if real_uname is not None and not is_host(target):
        _executable(directory / "uname", _uname(target, real_uname))
    return directory


@contextlib.contextmanager
def stand_ins(run_directory: Path, target: TargetHost) -> Iterator[Path | None]:
    """The stand-ins for `target`, in `run_directory/host` when programs may run from
    that file system (a noexec /dev/shm, as containers mount it, lets none run), else in
    a temporary directory of the system's that lets them, removed afterwards; None when
    no place here lets a program run."""
    if _runs_programs(run_directory):
        yield write_stand_ins(run_directory / "host", target)
        return
    base = tempfile.gettempdir()
    if _runs_programs(Path(base)):
        with tempfile.TemporaryDirectory(prefix="shiplint-host-", dir=base) as elsewhere:
            yield write_stand_ins(Path(elsewhere), target)
        return
    yield None


def _runs_programs(directory: Path) -> bool:
    try:
        return not os.statvfs(directory).f_flag & os.ST_NOEXEC
    except OSError:
        return False


def stand_ins_digest(directory: Path) -> str:
    """What the stand-ins are, whatever directory holds them: a kept run's key holds it."""
    digest = hashlib.sha256()
    for path in sorted(directory.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _uname(target: TargetHost, real: str) -> str:
    """A uname answering -s/-m/-p as the platform's does; for Windows, which has none,
    every question is the host's (and noted)."""
    if target.platform.os == "windows":
        known = ""
    else:
        system = "Darwin" if target.platform.os == "macos" else "Linux"
        machine = _machine(target.platform)
        known = (
            f'  "" | "-s" | "--kernel-name") echo "{system}" ;;\n'
            f'  "-m" | "--machine" | "-p" | "--processor") echo "{machine}" ;;\n'
            f'  "-sm" | "-s -m" | "-ms" | "-m -s") echo "{system} {machine}" ;;\n'
        )
    return (
        _UNAME.replace("@PLATFORM@", str(target.platform))
        .replace("@KNOWN@", known)
        .replace("@NOTES@", NOTES)
        .replace("@REAL@", real)
    )


def is_host(target: TargetHost) -> bool:
    """Whether `target` is this host's own platform (its Python aside)."""
    system = {"Linux": "linux", "Darwin": "macos", "Windows": "windows"}.get(host.system())
    arch = target.platform.arch
    return system == target.platform.os and (arch is None or arch == normalise_arch(host.machine()))


def _executable(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def host_answers(notes: Path) -> tuple[str, ...]:
    """What the stand-ins let the host answer in a run (`python -i`, `uname -r`), once each."""
    if not notes.is_file():
        return ()
    out: dict[str, None] = {}
    for line in notes.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.setdefault(f"{record.get('program')} {record.get('asked')}".strip(), None)
    return tuple(out)
