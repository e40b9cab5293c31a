"""Files only their owner can use: the one way ordergate creates its home and secret files.

The agent often runs on the owner's machine and reads whatever its OS user can read, so the
gateway's home is 0700 and every file in it 0600 (docs/architecture.md, "Threat model"):

- ``ensure_private_dir`` creates a missing directory, and each missing parent, at 0700.
- ``write_private`` replaces a file atomically: a sibling is created already at 0600
  (``O_CREAT | O_EXCL``, so it is never readable by anyone else, not even for an instant),
  filled, fsynced and renamed over the old one, and the directory is fsynced; a reader sees
  the old contents or the new, never half of each.
- ``create_private`` is the same but never replaces: the filled sibling is hard-linked into
  place (``link`` fails on an existing name), so a file appears whole or not at all.

Modes are set with ``fchmod``/``chmod`` after creation, so no umask can loosen them.

Two checks say what is wrong with a path, as a sentence naming it and the command that fixes
it (``None`` when nothing is):

- ``private_problem``, for a secret: a symbolic link, owned by another user, or any
  permission for group or others.
- ``tamper_problem``, for a file that is not secret but must not be changed by anyone else
  (the policy, a profile): writable by group or others, or owned by a user other than the
  current one or root. A directory with the sticky bit (``/tmp``) is not counted as writable:
  others cannot rename or delete what they do not own there.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import stat
from pathlib import Path

__all__ = [
    "create_private",
    "ensure_private_dir",
    "private_problem",
    "tamper_problem",
    "write_private",
]

_DIR_MODE = 0o700
_FILE_MODE = 0o600


def ensure_private_dir(path: Path) -> Path:
    """``path`` as a directory: created at 0700 when missing, and so is each missing parent.
    An existing directory is left as it is (``private_problem`` says whether it is private);
    ``NotADirectoryError`` when something else is there."""
    missing: list[Path] = []
    cursor = path
    while not cursor.exists():
        missing.append(cursor)
        cursor = cursor.parent
    if not cursor.is_dir():
        raise NotADirectoryError(f"{cursor} is not a directory")
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            directory.mkdir(mode=_DIR_MODE)
            os.chmod(directory, _DIR_MODE)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; the file is 0600 from its first byte and a
    missing directory is created 0700. On failure the old file is intact and no sibling is
    left behind."""
    ensure_private_dir(path.parent)
    temporary = _filled_sibling(path, data)
    try:
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)


def create_private(path: Path, data: bytes = b"") -> None:
    """Create ``path`` holding ``data``, 0600 from its first byte (a missing directory is
    created 0700); ``FileExistsError`` when it exists, which is then left untouched."""
    ensure_private_dir(path.parent)
    temporary = _filled_sibling(path, data)
    try:
        os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    _fsync_directory(path.parent)


def private_problem(path: Path) -> str | None:
    """What makes ``path`` readable or changeable by anyone but its owner, with the fix;
    ``None`` when it is private or does not exist."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"{path} cannot be examined ({error.strerror}): check its directory's permissions"
    if stat.S_ISLNK(info.st_mode):
        target = os.readlink(path)
        return (
            f"{path} is a symbolic link to {target}: keep the file itself there "
            f"(mv -T {target} {path})"
        )
    owner = _owner_problem(path, info, allow_root=False)
    if owner is not None:
        return owner
    is_dir = stat.S_ISDIR(info.st_mode)
    open_bits = stat.S_IMODE(info.st_mode) & 0o077
    if not open_bits:
        return None
    wanted = "700" if is_dir else "600"
    return (
        f"{path} is {_openness(info.st_mode, is_dir=is_dir)} "
        f"(mode {stat.S_IMODE(info.st_mode):04o}): chmod {wanted} {path}"
    )


def tamper_problem(path: Path) -> str | None:
    """What lets anyone but its owner (or root) change ``path`` (a link is judged by what it
    points to), with the fix; ``None`` when nobody else can or it does not exist."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"{path} cannot be examined ({error.strerror}): check its directory's permissions"
    target = path.resolve()
    named = str(path) if target == path.absolute() else f"{path} (a link to {target})"
    owner = _owner_problem(target, info, allow_root=True, named=named)
    if owner is not None:
        return owner
    writable = stat.S_IMODE(info.st_mode) & 0o022
    if stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX:
        writable = 0
    if not writable:
        return None
    who = _who(info.st_mode, stat.S_IWGRP, stat.S_IWOTH)
    return (
        f"{named} is writable by {who} (mode {stat.S_IMODE(info.st_mode):04o}): chmod go-w {target}"
    )


def _owner_problem(
    path: Path, info: os.stat_result, *, allow_root: bool, named: str | None = None
) -> str | None:
    me = os.geteuid()
    if info.st_uid == me or (allow_root and info.st_uid == 0):
        return None
    return (
        f"{named or path} belongs to {_user_name(info.st_uid)}, not to "
        f"{_user_name(me)} who runs ordergate: chown {_user_name(me)} {path}"
    )


def _openness(mode: int, *, is_dir: bool) -> str:
    verbs = (
        ("readable", stat.S_IRGRP, stat.S_IROTH),
        ("writable", stat.S_IWGRP, stat.S_IWOTH),
        ("searchable" if is_dir else "executable", stat.S_IXGRP, stat.S_IXOTH),
    )
    return ", ".join(
        f"{verb} by {_who(mode, group, other)}"
        for verb, group, other in verbs
        if mode & (group | other)
    )


def _who(mode: int, group: int, other: int) -> str:
    return " and ".join(name for name, bit in (("group", group), ("others", other)) if mode & bit)


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _filled_sibling(path: Path, data: bytes) -> Path:
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as stream:
            os.fchmod(stream.fileno(), _FILE_MODE)
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary


def _fsync_directory(directory: Path) -> None:
    # The rename is durable only once the directory entry is on disk.
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
