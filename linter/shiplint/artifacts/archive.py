"""Open a wheel/zip, a tar archive or an install directory WITHOUT unpacking it to disk.

`open_artifact(path) -> ArtifactTree` is the one entry point (used by the
artifact rules and by the CMake probe, which lays configs out in a temp dir).
A tree lists its regular files under normalised posix member paths and reads
them with a bounded size. Hostile entries (`..` or absolute paths, links that
leave the tree, special files, members whose declared size or compression ratio
is a bomb) are never listed as files: they are kept in `rejected` with the
reason, so a rule can report them; nothing is skipped silently.

Errors: an artifact that cannot be opened at all (missing, 0 bytes, not a zip
nor a tar) raises `ArtifactError` (the CLI turns it into exit 2); a member that
cannot be read raises `MemberError` (the collector turns it into a model fact).
"""

from __future__ import annotations

import lzma
import os
import stat
import tarfile
import threading
import zipfile
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import IO, TYPE_CHECKING

# Re-exported: the readers and their callers name them from here.
from shiplint.artifacts.kinds import ArtifactError as ArtifactError
from shiplint.artifacts.kinds import ArtifactKind as ArtifactKind
from shiplint.artifacts.kinds import MemberError as MemberError
from shiplint.artifacts.kinds import Rejected as Rejected
from shiplint.artifacts.member_names import MAX_COMPONENT_BYTES as MAX_COMPONENT_BYTES
from shiplint.artifacts.member_names import MAX_DEPTH as MAX_DEPTH
from shiplint.artifacts.member_names import MAX_NAME_CHARS as MAX_NAME_CHARS
from shiplint.artifacts.member_names import name_problem as name_problem
from shiplint.artifacts.member_names import normalise_member as normalise_member
from shiplint.artifacts.member_names import plain_member as plain_member
from shiplint.artifacts.member_names import printable as printable
from shiplint.artifacts.paths import join_within, parent_directories
from shiplint.artifacts.zip_inflate import read_plain
from shiplint.artifacts.zip_listing import Listing, ZipEntry, entry_of, keep_listing, kept_listing
from shiplint.diagnostics import Location
from shiplint.platforms import Platform, wheel_platform, wheel_platform_tag

if TYPE_CHECKING:
    from shiplint.artifacts.integrity import Problem

# Inflated members kept for a second reader while an artifact is open.
CACHE_BYTES = 128 * 1024 * 1024
# What one `read` may hold in memory: a member larger than this is read by `copy_to`
# into a file instead (the binary readers map it: `shiplint.artifacts.reading.large`).
DEFAULT_READ_LIMIT = 256 * 1024 * 1024
# Binaries up to this size are read into memory; larger ones through a file.
IN_MEMORY_BYTES = 64 * 1024 * 1024
# A member that inflates more than this ratio (and is big enough to matter) is a bomb.
MAX_COMPRESSION_RATIO = 200
_RATIO_MIN_SIZE = 1024 * 1024
# A tar listing is read by scanning the whole stream (a compressed one is inflated to
# skip each member): stop scanning a hostile one early, by count and by declared size.
# The same bounds hold for a zip's central directory (count, and total declared size).
MAX_MEMBERS = 200_000
MAX_TAR_BYTES = 4 * 1024 * 1024 * 1024
MAX_TOTAL_BYTES = MAX_TAR_BYTES
# A tar's GNU long name or pax header is a few hundred bytes; tarfile reads it whole.
MAX_TAR_HEADER_BYTES = 1024 * 1024
_CHUNK = 1024 * 1024
# What reading a damaged member raises: zipfile raises RuntimeError for encrypted members,
# BadZipFile on a CRC mismatch, zlib.error or LZMAError on a corrupt stream,
# NotImplementedError for an unknown compression method.
_READ_ERRORS = (
    OSError,
    EOFError,
    zipfile.BadZipFile,
    tarfile.TarError,
    RuntimeError,
    zlib.error,
    lzma.LZMAError,
    NotImplementedError,
    ValueError,
)


def _collisions(files: set[str]) -> set[str]:
    """Names that are a file and, in another member's path, a directory too."""
    return files & parent_directories(files)


def _resolve_link(member: str, target: str) -> str | None:
    """Where a symlink at `member` pointing to `target` lands, or None if it leaves the tree."""
    if target.replace("\\", "/").startswith("/"):
        return None
    return join_within(str(PurePosixPath(member).parent), target) or None


class ArtifactTree(ABC):
    """The files of one artifact. Use as a context manager; `close()` releases the handle."""

    def __init__(self, path: Path, kind: ArtifactKind) -> None:
        self.path = path
        self.kind = kind
        # How messages and subjects name it: the file name.
        self.label = path.name
        # How locations name it: the path as the user gave it (see `open_artifact`).
        self.shown = str(path)
        self.platform: Platform | None = (
            wheel_platform(path.name) if kind is ArtifactKind.WHEEL else None
        )
        # The wheel's platform tag as written (`manylinux_2_28_x86_64`): it names the
        # system-library policy the wheel claims.
        self.platform_tag: str | None = (
            wheel_platform_tag(path.name) if kind is ArtifactKind.WHEEL else None
        )
        self._rejected: list[Rejected] = []
        # The pipeline evaluates the config in a thread while binaries are read: zipfile
        # and tarfile share one file position, so member reads take turns.
        self._lock = threading.Lock()
        # Members already inflated, kept while the tree is open: the binary and operator
        # areas read the same libraries, and inflating them twice cost a tenth of a run.
        # Bounded, so a huge artifact costs reads, not memory.
        self._cache: dict[str, bytes] = {}
        self._cache_room = CACHE_BYTES

    @property
    def rejected(self) -> tuple[Rejected, ...]:
        return tuple(self._rejected)

    @abstractmethod
    def names(self) -> tuple[str, ...]:
        """Normalised posix member paths of regular files (and links to them), sorted."""

    @abstractmethod
    def size(self, name: str) -> int:
        """The member's (declared) uncompressed size in bytes."""

    def read(self, name: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        """The whole member. Raises MemberError if it is larger than `limit` or unreadable."""
        declared = self.size(name)
        if declared > limit:
            reason = f"{declared} bytes, more than the {limit} read limit"
            raise MemberError(self.path, name, reason)
        with self._lock:
            cached = self._cache.get(name)
            if cached is not None:
                return cached
            data = self._read_bounded(name, limit)
            if len(data) <= self._cache_room:
                self._cache[name] = data
                self._cache_room -= len(data)
            return data

    def copy_to(self, name: str, target: IO[bytes]) -> int:
        """Write the member into `target` piece by piece, never holding it whole (a real
        SDK's dylib is hundreds of MiB); the bytes written. Raises MemberError when it
        cannot be read or inflates past its declared size."""
        declared = self.size(name)
        total = 0
        try:
            with self._lock, self._open(name) as stream:
                while True:
                    chunk = stream.read(_CHUNK)
                    if not chunk:
                        break
                    total += len(chunk)
                    if total > declared:
                        raise MemberError(self.path, name, f"inflates past its {declared} bytes")
                    target.write(chunk)
        except MemberError:
            raise
        except _READ_ERRORS as exc:
            raise MemberError(self.path, name, f"cannot be read: {exc}") from exc
        return total

    def fingerprint(self, name: str) -> bytes | None:
        """A digest of everything `read(name)` depends on, taken without inflating the
        member (`shiplint.artifacts.fingerprint`), or None when the tree has none cheaper
        than reading it (tar, directory). Members with equal fingerprints read the same."""
        return None

    def head(self, name: str, count: int) -> bytes:
        """At most the first `count` bytes of a member (to sniff a file's magic). Raises
        MemberError when the member cannot be read."""
        cached = self._cache.get(name)
        if cached is not None:
            return cached[:count]
        try:
            with self._lock, self._open(name) as stream:
                return stream.read(count)
        except MemberError:
            raise
        except _READ_ERRORS as exc:
            raise MemberError(self.path, name, f"cannot be read: {exc}") from exc

    def location(self, name: str | None = None) -> Location:
        """Where a diagnostic points for the member `name`, or for the whole artifact."""
        where = Location(self.shown)
        return where if name is None else where.within(name)

    def _read_bounded(self, name: str, limit: int) -> bytes:
        chunks: list[bytes] = []
        total = 0
        try:
            with self._open(name) as stream:
                while True:
                    chunk = stream.read(min(_CHUNK, limit + 1 - total))
                    if not chunk:
                        break
                    total += len(chunk)
                    if total > limit:
                        raise MemberError(self.path, name, f"inflates past the {limit} read limit")
                    chunks.append(chunk)
        except MemberError:
            raise
        except _READ_ERRORS as exc:
            raise MemberError(self.path, name, f"cannot be read: {exc}") from exc
        return b"".join(chunks)

    @abstractmethod
    def _open(self, name: str) -> IO[bytes]: ...

    def close(self) -> None:
        self._cache.clear()

    def __enter__(self) -> ArtifactTree:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _reject(self, member: str, reason: str) -> None:
        self._rejected.append(Rejected(printable(member), reason))

    def _listable(self, raw: str) -> str | None:
        """The normalised name of a member fit to list, or None (rejected with the reason)."""
        if plain_member(raw):
            return raw
        name = normalise_member(raw)
        if name is None:
            self._reject(raw, "absolute path or `..` component")
            return None
        problem = name_problem(name)
        if problem is not None:
            self._reject(raw, problem)
            return None
        return name

    def _drop_collisions(self, files: dict[str, object]) -> None:
        for name in sorted(_collisions(set(files))):
            self._reject(name, "both a file and a directory in other members' paths")
            del files[name]

    def _missing(self, name: str) -> MemberError:
        return MemberError(self.path, name, "no such member")


class ZipTree(ArtifactTree):
    def __init__(self, path: Path, kind: ArtifactKind) -> None:
        super().__init__(path, kind)
        # zipfile's reading of the archive, made when a member must be read through it (or
        # the archive is listed), and the archive file the plain readers read.
        self._zip: zipfile.ZipFile | None = None
        self._file: IO[bytes] | None = None
        # Each member's fingerprint by its local header's offset, once taken (the binary and
        # operator areas both ask).
        self._fingerprints: dict[int, bytes | None] = {}
        # Those an earlier run kept for this archive file (loaded when first asked), and
        # whether this run took any it did not keep.
        self._kept: dict[int, bytes] | None = None
        self._fingerprints_taken = False
        # The archive file's digest (None: it cannot be read whole), which keys what is
        # kept of it: its listing, integrity and fingerprints.
        self._digest = _file_digest(path)
        listing = None if self._digest is None else kept_listing(self._digest)
        if listing is None:
            listing = self._list()
            if self._digest is not None:
                keep_listing(self._digest, listing)
        else:
            self._rejected = [Rejected(member, reason) for member, reason in listing.rejected]
        self._files = listing.files
        self._links = listing.links

    def _list(self) -> Listing:
        """The archive's members as zipfile reads them, each checked (`_add`)."""
        infos = self._archive().infolist()
        total = sum(max(info.file_size, 0) for info in infos)
        if len(infos) > MAX_MEMBERS or total > MAX_TOTAL_BYTES:
            self.close()
            raise ArtifactError(
                self.path,
                f"{len(infos):,} members declaring {total:,} bytes, more than the "
                f"{MAX_MEMBERS:,} members or {MAX_TOTAL_BYTES:,} bytes an artifact may hold",
            )
        files: dict[str, ZipEntry] = {}
        links: dict[str, ZipEntry] = {}
        for index, info in enumerate(infos):
            self._add(entry_of(index, info), info, files, links)
        self._drop_collisions(files)  # type: ignore[arg-type]
        resolved: dict[str, str] = {}
        for name, entry in links.items():
            target = self._link_target(name, infos[entry.position], files)
            if target is not None:
                resolved[name] = target
        rejected = tuple((r.member, r.reason) for r in self._rejected)
        return Listing(files, resolved, rejected)

    def _add(
        self,
        entry: ZipEntry,
        info: zipfile.ZipInfo,
        files: dict[str, ZipEntry],
        links: dict[str, ZipEntry],
    ) -> None:
        if info.is_dir():
            return
        name = self._listable(info.filename)
        if name is None:
            return
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            links[name] = entry
            return
        # Zips made off unix carry no file type bits; only a stated non-file type is refused.
        if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
            self._reject(name, "special file (neither regular file nor link)")
            return
        if name in files:
            self._reject(name, "duplicate member; the last one is read")
        # No size alone makes a bomb (torch 2.14.1's macOS libtorch_cpu.dylib is 368 MiB):
        # the ratio does, and the archive's total declared size (checked on opening).
        if info.file_size > _RATIO_MIN_SIZE and info.file_size > MAX_COMPRESSION_RATIO * max(
            info.compress_size, 1
        ):
            ratio = info.file_size // max(info.compress_size, 1)
            self._reject(name, f"inflates {ratio}x ({info.file_size} bytes): a zip bomb")
            return
        files[name] = entry

    def _link_target(
        self, name: str, info: zipfile.ZipInfo, files: dict[str, ZipEntry]
    ) -> str | None:
        # A zip symlink stores its target as the member's data (small by construction).
        try:
            with self._archive().open(info) as stream:
                target = stream.read(4096).decode("utf-8", "replace")
        except _READ_ERRORS as exc:
            self._reject(name, f"unreadable symlink ({exc})")
            return None
        resolved = _resolve_link(name, target)
        if resolved is None or resolved not in files:
            self._reject(
                name, f"symlink to {printable(target)!r} leaves the archive or names no file"
            )
            return None
        return resolved

    def _archive(self) -> zipfile.ZipFile:
        """zipfile's reading of the archive, made once, when first needed."""
        if self._zip is None:
            try:
                self._zip = zipfile.ZipFile(self.path)
            except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
                raise ArtifactError(self.path, f"not a readable zip archive ({exc})") from exc
        return self._zip

    def _archive_file(self) -> IO[bytes]:
        """The archive file the plain readers read (the caller holds the tree's lock)."""
        if self._file is None:
            self._file = self.path.open("rb")
        return self._file

    def _zip_info(self, name: str) -> zipfile.ZipInfo:
        """zipfile's own entry for a listed member (reading the archive through zipfile)."""
        return _same_entry(self._archive().infolist(), self._info(name), self.path, name)

    def integrity(self) -> tuple[Problem, ...]:
        """Where the zip's local headers, and a wheel's RECORD, disagree with its members."""
        from shiplint.artifacts.integrity import check_wheel, kept_check

        record = self.kind is ArtifactKind.WHEEL
        kept = kept_check(self.path, record)
        if kept is not None:
            return kept
        with self._lock:
            archive = self._archive()
            # The members read so far (a first run's libraries) are hashed, not inflated again.
            inflated = {self._zip_info(name): data for name, data in self._cache.items()}
            return check_wheel(self.path, archive, record, inflated)

    def names(self) -> tuple[str, ...]:
        return tuple(sorted({*self._files, *self._links}))

    def _info(self, name: str) -> ZipEntry:
        entry = self._files.get(self._links.get(name, name))
        if entry is None:
            raise self._missing(name)
        return entry

    def size(self, name: str) -> int:
        return self._info(name).file_size

    def fingerprint(self, name: str) -> bytes | None:
        from shiplint.artifacts.fingerprint import zip_member_fingerprint

        entry = self._info(name)
        with self._lock:
            if entry.header_offset not in self._fingerprints:
                found = self._kept_fingerprints().get(entry.header_offset)
                if found is None:
                    try:
                        found = zip_member_fingerprint(self._archive_file(), entry)
                    except (OSError, ValueError, OverflowError):
                        # A header offset before the file's start or past what a seek
                        # takes: reading the member says what is wrong.
                        found = None
                    self._fingerprints_taken |= found is not None
                self._fingerprints[entry.header_offset] = found
            return self._fingerprints[entry.header_offset]

    def _kept_fingerprints(self) -> dict[int, bytes]:
        """The fingerprints an earlier run took in this same archive file, once."""
        if self._kept is None:
            from shiplint.artifacts.fingerprint import kept_fingerprints

            self._kept = {} if self._digest is None else kept_fingerprints(self._digest)
        return self._kept

    def _read_bounded(self, name: str, limit: int) -> bytes:
        # A plain member (`zip_inflate`) is read in large blocks, its CRC-32 checked as
        # zipfile checks it: these bytes are parsed. Anything else, or a member whose CRC
        # differs, is read by zipfile, which reads it or says what is wrong.
        entry = self._info(name)
        if entry.file_size <= limit:
            blocks: list[bytes] = []
            try:
                stream = self._archive_file()
            except OSError as exc:
                raise MemberError(self.path, name, f"cannot be read: {exc}") from exc
            if read_plain(stream, entry, blocks.append, crc=True):
                return b"".join(blocks)
        return super()._read_bounded(name, limit)

    def _open(self, name: str) -> IO[bytes]:
        entry = self._info(name)
        try:
            archive = self._archive()
        except ArtifactError as exc:
            raise MemberError(self.path, name, f"cannot be read: {exc.reason}") from exc
        try:
            return archive.open(_same_entry(archive.infolist(), entry, self.path, name))
        except _READ_ERRORS as exc:
            raise MemberError(self.path, name, f"cannot be read: {exc}") from exc

    def close(self) -> None:
        super().close()
        if self._zip is not None:
            self._zip.close()
        if self._file is not None:
            self._file.close()
        if self._fingerprints_taken and self._digest is not None:
            from shiplint.artifacts.fingerprint import keep_fingerprints

            known = {o: f for o, f in self._fingerprints.items() if f is not None}
            keep_fingerprints(self._digest, {**(self._kept or {}), **known})
            self._fingerprints_taken = False


def _same_entry(
    infos: list[zipfile.ZipInfo], entry: ZipEntry, path: Path, name: str
) -> zipfile.ZipInfo:
    """zipfile's entry at the listed member's position, when it is that member's."""
    if entry.position < len(infos):
        info = infos[entry.position]
        if (info.orig_filename, info.header_offset) == (entry.orig_filename, entry.header_offset):
            return info
    raise MemberError(path, name, "cannot be read: the archive is not the one listed")


def _file_digest(path: Path) -> bytes | None:
    from shiplint.artifacts.file_digest import file_digest

    try:
        return file_digest(path)
    except OSError:
        return None


class _BoundedTarInfo(tarfile.TarInfo):
    """A tar header whose GNU long name or pax block may not be huge: tarfile reads such a
    block whole into memory before it looks at it."""

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _TAR_EXTENSION_TYPES and self.size > MAX_TAR_HEADER_BYTES:
            raise tarfile.ReadError(
                f"a {self.size:,}-byte extended header, more than {MAX_TAR_HEADER_BYTES:,}"
            )
        return super()._proc_member(tarfile_)  # type: ignore[misc,no-any-return]


_TAR_EXTENSION_TYPES = (
    tarfile.GNUTYPE_LONGNAME,
    tarfile.GNUTYPE_LONGLINK,
    tarfile.XHDTYPE,
    tarfile.XGLTYPE,
    tarfile.SOLARIS_XHDTYPE,
)


class TarTree(ArtifactTree):
    def __init__(self, path: Path) -> None:
        super().__init__(path, ArtifactKind.TAR)
        try:
            # Held open for the tree's life and closed by close(), like the zip.
            self._tar = tarfile.open(path, "r:*", tarinfo=_BoundedTarInfo)  # noqa: SIM115
        except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
            raise ArtifactError(path, f"not a readable tar archive ({exc})") from exc
        self._files: dict[str, tarfile.TarInfo] = {}
        self._links: dict[str, str] = {}
        pending: list[tuple[str, str]] = []
        total = 0
        try:
            for count, member in enumerate(self._tar, 1):
                total += max(member.size, 0)
                if count > MAX_MEMBERS or total > MAX_TAR_BYTES:
                    raise ArtifactError(
                        path,
                        f"more than {MAX_MEMBERS} members or {MAX_TAR_BYTES} bytes declared "
                        f"(at {member.name!r}): not scanned further",
                    )
                self._add(member, pending)
        except ArtifactError:
            self._tar.close()
            raise
        except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
            self._tar.close()
            raise ArtifactError(path, f"corrupt tar archive ({exc})") from exc
        self._drop_collisions(self._files)  # type: ignore[arg-type]
        for name, target in pending:
            resolved = target if target in self._files else None
            if resolved is None:
                self._reject(name, "link leaves the archive or names no file")
            else:
                self._links[name] = resolved

    def _add(self, member: tarfile.TarInfo, pending: list[tuple[str, str]]) -> None:
        if member.isdir():
            return
        name = self._listable(member.name)
        if name is None:
            return
        if member.issym():
            target = _resolve_link(name, member.linkname)
            if target is None:
                self._reject(name, f"symlink to {printable(member.linkname)!r} leaves the archive")
            else:
                pending.append((name, target))
            return
        if member.islnk():
            # A hard link names its target from the archive root.
            target = normalise_member(member.linkname)
            if target is None:
                self._reject(
                    name, f"hard link to {printable(member.linkname)!r} leaves the archive"
                )
            else:
                pending.append((name, target))
            return
        if not member.isreg():
            self._reject(name, "special file (neither regular file nor link)")
            return
        if name in self._files:
            self._reject(name, "duplicate member; the last one is read")
        self._files[name] = member

    def names(self) -> tuple[str, ...]:
        return tuple(sorted({*self._files, *self._links}))

    def _info(self, name: str) -> tarfile.TarInfo:
        info = self._files.get(self._links.get(name, name))
        if info is None:
            raise self._missing(name)
        return info

    def size(self, name: str) -> int:
        return self._info(name).size

    def _open(self, name: str) -> IO[bytes]:
        try:
            stream = self._tar.extractfile(self._info(name))
        except _READ_ERRORS as exc:
            raise MemberError(self.path, name, f"cannot be read: {exc}") from exc
        if stream is None:
            raise MemberError(self.path, name, "not a regular file")
        return stream

    def close(self) -> None:
        super().close()
        self._tar.close()


class DirectoryTree(ArtifactTree):
    """An install tree on disk. Symlinks are followed only while they stay inside it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, ArtifactKind.DIRECTORY)
        self._root = Path(os.path.realpath(path))
        self._files: dict[str, Path] = {}
        for name, full in self._walk():
            self._add(name, full)

    def _walk(self) -> Iterator[tuple[str, Path]]:
        # Directory links are not descended: the files they alias are listed under
        # their real path, and a link to a parent would loop. Iterative and bounded in
        # depth: a tree may be deeper than Python's recursion limit.
        todo = [(str(self._root), 0)]
        while todo:
            top, depth = todo.pop()
            try:
                entries = sorted(os.scandir(top), key=lambda e: e.name)
            except OSError as exc:
                self._reject(self._name(Path(top)) or ".", f"cannot list ({exc.strerror})")
                continue
            for entry in entries:
                full = Path(entry.path)
                name = self._name(full)
                problem = name_problem(name)
                if problem is not None:
                    self._reject(name, problem)
                elif entry.is_dir(follow_symlinks=False):
                    todo.append((entry.path, depth + 1))
                elif entry.is_symlink() and full.is_dir():
                    if not self._inside(full):
                        self._reject(name, "directory link leaves the tree")
                else:
                    yield name, full

    def _name(self, full: Path) -> str:
        return full.relative_to(self._root).as_posix()

    def _inside(self, full: Path) -> bool:
        real = os.path.realpath(full)
        return os.path.commonpath([real, str(self._root)]) == str(self._root)

    def _add(self, name: str, full: Path) -> None:
        if full.is_symlink():
            if not self._inside(full):
                self._reject(name, f"symlink to {printable(os.readlink(full))!r} leaves the tree")
                return
            if not full.exists():
                self._reject(name, f"dangling symlink to {printable(os.readlink(full))!r}")
                return
        try:
            mode = full.stat().st_mode
        except OSError as exc:
            self._reject(name, f"cannot stat ({exc.strerror})")
            return
        if not stat.S_ISREG(mode):
            self._reject(name, "special file (neither regular file nor link)")
            return
        self._files[name] = full

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._files))

    def _file(self, name: str) -> Path:
        full = self._files.get(name)
        if full is None:
            raise self._missing(name)
        return full

    def size(self, name: str) -> int:
        try:
            return self._file(name).stat().st_size
        except OSError as exc:
            raise MemberError(self.path, name, f"cannot stat ({exc.strerror})") from exc

    def _open(self, name: str) -> IO[bytes]:
        try:
            return self._file(name).open("rb")
        except OSError as exc:
            raise MemberError(self.path, name, f"cannot be read ({exc.strerror})") from exc


_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2")
# The names an archive artifact goes by (a zip or tar under another name is still
# opened by its content, but only these make a directory one of artifacts).
ARCHIVE_SUFFIXES = (".whl", ".zip", *_TAR_SUFFIXES)


def open_artifact(path: Path | str, shown: str | None = None) -> ArtifactTree:
    """Open a wheel/zip, a tar archive or a directory. Raises ArtifactError when it cannot.

    `shown` is the artifact's path in reports (the CLI gives it relative to the
    checked root); the path as given when None."""
    tree = _open(Path(path))
    if shown is not None:
        tree.shown = shown
    return tree


def _open(path: Path) -> ArtifactTree:
    if path.is_dir():
        return DirectoryTree(path)
    if not path.exists():
        raise ArtifactError(path, "no such file or directory")
    if not path.is_file():
        raise ArtifactError(path, "neither a regular file nor a directory")
    name = path.name.lower()
    size = path.stat().st_size
    if size == 0:
        raise ArtifactError(path, "empty file (0 bytes)")
    if name.endswith(".whl"):
        if not zipfile.is_zipfile(path):
            raise ArtifactError(path, "a wheel must be a zip archive, and this file is not one")
        return ZipTree(path, ArtifactKind.WHEEL)
    if name.endswith(_TAR_SUFFIXES):
        return TarTree(path)
    if zipfile.is_zipfile(path):
        return ZipTree(path, ArtifactKind.ZIP)
    if _is_tar(path):
        return TarTree(path)
    raise ArtifactError(path, "not a wheel, zip, tar archive or directory")


def _is_tar(path: Path) -> bool:
    try:
        return tarfile.is_tarfile(path)
    except (OSError, tarfile.TarError, EOFError):
        return False
