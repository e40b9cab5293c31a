"""``check_home``: whether the gateway's secrets are out of every other user's reach.

The agent often runs on the owner's machine and reads whatever its OS user can read
(docs/architecture.md, "Threat model"). ``ordergate serve`` therefore refuses to start while
anything below is open to another user, one sentence per problem naming the file and the
command that fixes it. There is no override: the fix is a ``chmod``.

Secret (``ordergate.core.private_problem``: no permission for group or others, owned by the
user running the gateway, not a symbolic link):

- ``ORDERGATE_HOME`` itself;
- the token file ``ordergate login`` writes (``Settings.token_file``);
- the SQLite ledger and its ``-wal``, ``-shm`` and ``-journal`` files, which also hold the
  sealed upstream sessions and the gateway's token hashes; a ledger named by ``--db``
  outside the home is checked the same way. A Postgres ledger has nothing on this disk to
  check;
- the owner enrolment, ``owner.json``, when there is one.

Not secret, but nobody else may change them (``ordergate.core.tamper_problem``), since an
agent that could would loosen its own limits: the policy file, the profiles folder and every
file in it. A policy or profile may be a symbolic link (to a file kept with the owner's
dotfiles, say): what it points to is judged. Any directory other than the home that holds
one of these files must not be writable by others either, who could replace the file.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import make_url
from sqlalchemy.exc import ArgumentError

from ordergate.core import private_problem, tamper_problem
from ordergate.owner import ENROLMENT_FILE
from ordergate.runtime._settings import Settings

# The ledger's own rule for where its default database is (ORDERGATE_DB_URL, else the home).
from ordergate.store import default_url

__all__ = ["OWNER_FILE", "PROFILES_FOLDER", "check_home"]

OWNER_FILE = ENROLMENT_FILE
PROFILES_FOLDER = "profiles"
_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def check_home(settings: Settings) -> list[str]:
    """Every way another OS user could read the gateway's secrets or change its policy, as
    sentences naming the file and the fix; empty when there is none. Missing files are not
    problems: whatever ordergate creates later is created private."""
    home = settings.home
    secrets = [home, settings.token_file]
    ledger = _sqlite_file(settings.db_url)
    if ledger is not None:
        secrets += [ledger, *(ledger.with_name(ledger.name + end) for end in _SQLITE_COMPANIONS)]
    secrets.append(home / OWNER_FILE)
    profiles = home / PROFILES_FOLDER
    guarded = [settings.policy_path, profiles]
    if profiles.is_dir():
        guarded += sorted(profiles.iterdir())
    # Whoever can write a file's directory can replace the file: the home is checked above,
    # any other directory (a --policy or --db elsewhere, a link's target) here.
    held = [*guarded, *([ledger] if ledger is not None else [])]
    outside = [path.resolve().parent for path in held]
    guarded += [folder for folder in outside if folder != home.resolve()]
    found = [private_problem(path) for path in secrets]
    found += [tamper_problem(path) for path in guarded]
    return list(dict.fromkeys(problem for problem in found if problem is not None))


def _sqlite_file(db_url: str | None) -> Path | None:
    """The file a SQLite ledger URL names; ``None`` for any other database (or a URL that
    is not one, which opening the ledger reports)."""
    try:
        url = make_url(db_url or default_url())
    except ArgumentError:
        return None
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(str(url.database)).expanduser()
