"""When the python stand-in may give an answer again without starting Python.

ExecuTorch's config runs `python3 -c "import sysconfig; print(...)"` at every
find_package, and the probe evaluates the config ten times a run: each start of the
interpreter costs ~45 ms of CPU here to print the same line. So, within one
configure run, the stand-in (target_host.py) gives an answer it kept again, under
this rule.

A question is kept only when the real interpreter answered it and found, while
answering, that nothing but the question can change its answer:

- the command line is `-c CODE [ARG...]`, nothing before `-c` (an option such as `-i`
  or `-W` changes what runs or what is printed at startup);
- stdin is /dev/null (the code cannot be given anything else through it), and
  stdout and stderr are open (an answer given again is printed there);
- CODE is `pure`: only `import`s of sys, sysconfig and platform, assignments to
  names, and expressions calling print (without `file=`), a few builtins, string and
  container methods and a closed list of those modules' functions that read the
  interpreter's own configuration (sysconfig's variables, paths and platform;
  platform.system/machine/python_version...): nothing that reads or writes a file,
  starts a process or reaches another module (no `_` attribute, no module or
  function held as a value, no str.format, whose fields read any attribute; nothing
  whose printed form holds an address, which differs from start to start; not the
  kernel's release, which a process's personality changes);
- it ended normally (exit status 0), wrote nothing on stderr (a warning would, the
  compiler's included), and all it printed passed through the stand-in's copy of
  stdout;
- the environment holds no PYTHON* variable that changes what starts (PYTHONPATH,
  PYTHONSTARTUP, PYTHONINSPECT, PYTHONWARNINGS...); only PYTHONDONTWRITEBYTECODE,
  PYTHONHASHSEED, PYTHONIOENCODING, PYTHONUNBUFFERED, PYTHONUTF8, PYTHONNOUSERSITE and
  PYTHONUSERBASE are let through (their values are part of the question);
- no loaded module (nor sys.path entry) lies in the working directory, HOME or
  TMPDIR (the run's writable places), and no entry of the working directory has the
  name of a loaded module (`re.py`, a `re/` directory that a file added later would
  make a package): what a later start imports is then decided by the names in the
  working directory, which are part of the question;
- the user's site-packages (site.USER_SITE, in the run's HOME) does not exist: the
  kept answer is given only while it still does not (a .pth there runs code at
  startup).

The stand-in (a sh script) looks for a kept answer only when the command line starts
with `-c`, stdin is /dev/null and stdout and stderr are open, and without starting
any program: with shell builtins only, it writes the physical working directory
(`pwd -P`), the names in it (a glob, `/`-separated) and what a program it starts is
given: the environment (`export -p`: exactly the exported variables, quoted; a
variable whose name no shell variable can have is dropped from both, and none is
one Python or sysconfig reads) and the resource limits (`ulimit -a`, soft and hard:
a lower one can stop Python from starting). It reads them back into variables and
sources each kept answer, one that prints and exits only when the stand-in is the
same one (`python` and `python3` may run different interpreters) and the number of
arguments, every argument and those three texts are each the same, byte for byte,
as when it was kept. Its own shell variables are `_shiplint_*` names, and when the
environment it was given holds one of them it does not look at all: a shell exports
a change to a variable it imported, and Python would be given that. Without a kept
answer, Python runs, told where those three texts are and, if the question proves
pure, keeps its answer with them. The stand-in's own files are not part of the
question: a config that rewrites them (they may live in its run's directory) changes
only its own answers.

An answer is kept in `$HOME/.shiplint-python-memo/answer.<pid>` (64 at most), a sh
file the stand-in sources that prints the answer and exits 0 when the question is
the same and the user's site-packages does not exist by then: in the run's HOME,
inside the run's temporary directory, emptied by run.py before each CMake run
(following no link a config left there) and made only for a confined run
(unconfined, a config could change the interpreter itself between two questions);
never in the user cache, so nothing outlives the run or reaches another artifact's
evaluation. It is read and written only by the stand-in, which runs inside the
run's confinement as the config's own processes do. A config can write there too
(it can write anywhere in its run's directory), and the stand-in then runs what it
wrote: with the config's own confinement and rights, which its execute_process has
anyway; all it can change is the answers it gets itself, which it could as well
make up.

This file is run by the stand-in's Python (its text is part of the stand-in's
script): standard library only.
"""

from __future__ import annotations

import ast
import os
import stat
import sys
import warnings
from typing import TextIO

MEMO = ".shiplint-python-memo"
# The largest answer kept (a sh string the stand-in prints), and how many are kept.
_KEPT = 64 * 1024
_ANSWERS = 64

# What each module may be asked (attributes read or called on the module itself).
_MODULES = {
    "sys": frozenset(
        {
            "version_info", "version", "hexversion", "platform", "implementation",
            "maxsize", "byteorder", "abiflags", "api_version", "float_info", "int_info",
            "maxunicode", "prefix", "base_prefix", "exec_prefix", "base_exec_prefix",
            "executable", "platlibdir",
        }
    ),
    "sysconfig": frozenset(
        {
            "get_config_var", "get_config_vars", "get_platform", "get_python_version",
            "get_path", "get_paths", "get_path_names", "get_scheme_names",
            "get_default_scheme", "get_preferred_scheme", "get_makefile_filename",
            "get_config_h_filename",
        }
    ),
    "platform": frozenset(
        {
            # (not release or version: the kernel's, which a personality such as
            # setarch --uname-2.6 changes for the process)
            "system", "machine", "python_version",
            "python_version_tuple", "python_implementation", "python_compiler",
            "python_branch", "python_revision", "python_build",
        }
    ),
}  # fmt: skip
_BUILTINS = frozenset(
    {"print", "str", "int", "float", "bool", "len", "repr", "tuple", "list", "dict",
     "sorted", "min", "max", "any", "all", "abs", "round", "zip", "enumerate", "range",
     "isinstance", "True", "False", "None"}
)  # fmt: skip
# Methods of the data those give back (str, tuple, dict), called only: none reaches a
# file, a process or a module (not `format`: its fields read any attribute).
_METHODS = frozenset(
    {
        "join", "split", "rsplit", "splitlines", "strip", "lstrip", "rstrip", "replace",
        "upper", "lower", "startswith", "endswith", "partition", "rpartition", "find",
        "rfind", "count", "index", "removeprefix", "removesuffix", "zfill", "isdigit",
        "casefold", "title", "center", "ljust", "rjust", "get", "items", "keys", "values",
    }
)  # fmt: skip
# Fields of version_info, sys.implementation, float_info and the like.
_FIELDS = frozenset(
    {"major", "minor", "micro", "releaselevel", "serial", "name", "cache_tag", "version",
     "max", "min", "dig", "epsilon", "bits_per_digit"}
)  # fmt: skip
_EXPRESSIONS = (
    ast.Constant, ast.JoinedStr, ast.FormattedValue, ast.Tuple, ast.List, ast.Dict,
    ast.Subscript, ast.Slice, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
    ast.Load, ast.Store, ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.Starred,
    ast.keyword, ast.comprehension, ast.ListComp, ast.GeneratorExp,
)  # fmt: skip
# Let through in the environment (the key holds their values); any other PYTHON*
# variable may change what starts, or what is printed at startup.
_PYTHON_VARIABLES = frozenset(
    {"PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUNBUFFERED",
     "PYTHONUTF8", "PYTHONNOUSERSITE", "PYTHONUSERBASE"}
)  # fmt: skip


def pure(code: str) -> bool:
    """Whether `code` only reads the interpreter's configuration and prints it. A value
    whose printed form holds an address (a function not called) is refused too: the
    same question would print another one."""
    try:
        # Quietly: a warning of the parser's is the compiler's to print, once, as Python
        # does, and it makes the question one not to keep (stderr is not empty).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    scope = _Scope()
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.name not in _MODULES or alias.asname not in (None, alias.name):
                    return False
                scope.modules.add(alias.name)
        elif isinstance(statement, ast.ImportFrom):
            allowed = _MODULES.get(statement.module or "")
            if statement.level or allowed is None:
                return False
            for alias in statement.names:
                if alias.name not in allowed:
                    return False
                bound = alias.asname or alias.name
                module = statement.module or ""
                (scope.functions if module != "sys" else scope.data).add(bound)
        elif isinstance(statement, ast.Assign):
            targets = statement.targets
            if not all(isinstance(t, ast.Name) for t in targets):
                return False
            if not _pure_expression(statement.value, scope):
                return False
            scope.data.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(statement, ast.Expr):
            if not _pure_expression(statement.value, scope):
                return False
        else:
            return False
        # A name is one thing: a module or function rebound as data is refused.
        if scope.modules & scope.data or scope.functions & scope.data:
            return False
    return True


class _Scope:
    def __init__(self) -> None:
        self.modules: set[str] = set()  # bound to a module of _MODULES
        self.functions: set[str] = set()  # bound to a function of one (from-imported)
        self.data: set[str] = set()  # bound to what those give back


def _pure_expression(node: ast.expr, scope: _Scope) -> bool:
    nodes = list(ast.walk(node))
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    objects = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
    local = {
        n.id
        for c in nodes
        if isinstance(c, ast.comprehension)
        for n in ast.walk(c.target)
        if isinstance(n, ast.Name)
    }
    for child in nodes:
        if isinstance(child, ast.Name):
            if child.id in scope.modules:
                ok = id(child) in objects  # checked at its attribute
            elif child.id in scope.functions:
                ok = id(child) in called
            else:
                ok = child.id in scope.data or child.id in local or child.id in _BUILTINS
        elif isinstance(child, ast.Attribute):
            ok = _pure_attribute(child, scope, id(child) in called)
        elif isinstance(child, ast.Call):
            # print only to stdout: no `file=`, no `**` (it could name one).
            ok = all(k.arg not in (None, "file") for k in child.keywords)
        elif isinstance(child, ast.comprehension):
            ok = not child.is_async and all(
                isinstance(n, (ast.Name, ast.Tuple, ast.expr_context))
                for n in ast.walk(child.target)
            )
        else:
            ok = isinstance(child, _EXPRESSIONS)
        if not ok:
            return False
    return True


def _pure_attribute(node: ast.Attribute, scope: _Scope, called: bool) -> bool:
    if node.attr.startswith("_"):
        return False
    if isinstance(node.value, ast.Name) and node.value.id in scope.modules:
        module = node.value.id
        # sys's are data; the others' are functions, printed only called.
        return node.attr in _MODULES[module] and (called or module == "sys")
    return node.attr in _METHODS if called else node.attr in _FIELDS


def quiet_environment(environ: dict[str, str]) -> bool:
    """No PYTHON* variable but those that change nothing a pure question reads."""
    return all(not k.startswith("PYTHON") or k in _PYTHON_VARIABLES for k in environ)


def stdin_is_null() -> bool:
    try:
        given, null = os.fstat(0), os.stat("/dev/null")
    except OSError:
        return False
    return stat.S_ISCHR(given.st_mode) and os.path.samestat(given, null)


def loaded_from_elsewhere(cwd: str, writable: tuple[str, ...]) -> bool:
    """Whether every loaded module comes from outside `cwd` and `writable`, and no entry
    of `cwd` has the name of a loaded top-level module (a later start would import it)."""
    places = [os.path.realpath(p) for p in (cwd, *writable) if p]
    try:
        entries = {name.split(".", 1)[0] for name in os.listdir(cwd)}
    except OSError:
        return False
    for name, module in list(sys.modules.items()):
        if name == "__main__":
            continue  # the stand-in's own script, which may live in the run's directory
        if name.split(".", 1)[0] in entries:
            return False
        files = [getattr(module, "__file__", None), *list(getattr(module, "__path__", ()) or ())]
        for file in files:
            if isinstance(file, str) and _under(os.path.realpath(file), places):
                return False
    return not any(_under(os.path.realpath(p), places) for p in sys.path if p)


def _under(path: str, places: list[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in places)


class Tee:
    """A stream that passes every write to `stream` (as it would have been written:
    buffering and encoding are the stream's own) and keeps a copy."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.written: list[str] = []

    def write(self, text: str) -> int:
        self.written.append(text)
        return self.stream.write(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


def record(
    memo: str, question: str, script: bytes, args: list[bytes], output: bytes, user_site: str
) -> None:
    """Keep `output` as the answer to the question the stand-in wrote at `question`
    (`.cwd`, `.ls`, `.env`) with the arguments `args`, asked of the stand-in whose
    Python script is `script` (`python` and `python3` may run different interpreters,
    each has its own): a sh file the stand-in sources,
    which prints it and ends with status 0 when every part of the question is the same
    and `user_site` does not exist. Written whole, then renamed: a stand-in sees all of
    it or none. Output holding a NUL (no sh string can) or larger than `_KEPT` is not
    kept, nor anything when the question is not the stand-in's."""
    if os.path.dirname(question) != memo or not os.path.basename(question).startswith("question."):
        return
    if b"\0" in output or len(output) > _KEPT or "\0" in user_site:
        return
    # Each question sources every kept answer: a config asking thousands of questions
    # pays for each, not for each against all.
    try:
        if sum(name.startswith("answer.") for name in os.listdir(memo)) >= _ANSWERS:
            return
    except OSError:
        return
    # The script path as the stand-in gave it to Python (its own name in it).
    tests = [b'[ "$_shiplint_s" = ' + _quoted(script) + b" ]"]
    tests.append(b'[ "$#" = ' + str(len(args)).encode() + b" ]")
    tests += [
        b'[ "${' + str(i).encode() + b'}" = ' + _quoted(a) + b" ]" for i, a in enumerate(args, 1)
    ]
    try:
        for variable, suffix in (("cwd", ".cwd"), ("ls", ".ls"), ("env", ".env")):
            with open(question + suffix, "rb") as stream:
                said = stream.read(_KEPT + 1)
            if len(said) > _KEPT or b"\0" in said:
                return
            tests.append(b'[ "$_shiplint_' + variable.encode() + b'" = ' + _quoted(said) + b" ]")
    except OSError:
        return
    tests.append(b"[ ! -e " + _quoted(user_site.encode("utf-8", "surrogateescape")) + b" ]")
    text = b"if " + b" &&\n   ".join(tests) + b"\nthen\n  printf '%s' " + _quoted(output)
    text += b"\n  exit 0\nfi\n"
    partial = os.path.join(memo, f"partial.{os.getpid()}")
    try:
        with open(partial, "wb") as stream:
            stream.write(text)
        os.rename(partial, os.path.join(memo, f"answer.{os.getpid()}"))
    except OSError:
        pass  # the directory is gone, or refused: nothing kept


def _quoted(data: bytes) -> bytes:
    return b"'" + data.replace(b"'", b"'\\''") + b"'"
