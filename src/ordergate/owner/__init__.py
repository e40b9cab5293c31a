"""The owner's authority: the credential only the person who owns the account holds.

The agent runs on the owner's own machine and can reach every loopback route and run every
command, so anything the owner alone may do needs something the agent does not have: the
**owner code**, a current TOTP code from the owner's phone (RFC 6238) or, where one is
enrolled, the owner's passphrase.

- ``new_enrolment`` / ``write_enrolment`` / ``read_enrolment``: ``ordergate owner init``
  makes the TOTP secret (shown once, as an ``otpauth://`` URI and a QR code) and the
  passphrase's scrypt hash, kept in ``$ORDERGATE_HOME/owner.json`` (0600).
- ``OwnerAuthority.authorize(code, act, digest=…)``: one check per owner act — a code is
  spent on the one act it was typed for (``act_digest``), wrong codes lock owner acts for a
  while, and every attempt is journalled with the act, its digest and the credential kind,
  never the code.
- ``PreparedActs``: an act the gateway prepared (``PreparedAct``: its summary and digest),
  authorised once, within minutes.
- ``OwnerAct``: the acts that need the code; ``Credential``: what authorised one.
- ``acting_from(source)``: where codes come from (an address class, or ``OWNER_CHANNEL``);
  each source has its own lockout with exponential backoff in front of the global one, and
  the passphrase's scrypt runs on a ``ScryptPool`` of its own (``owner_busy`` when full).
- ``Delays``: an authorised act that loosens waits as a ``DelayedAct`` until the owner's delay
  (``DelaySettings``, asked for at enrolment) has passed; a tightening or the owner's cancel
  ends it before.
"""

from ordergate.owner._acts import Credential, OwnerAct, act_digest
from ordergate.owner._authority import (
    FAILURE_WINDOW,
    LOCKOUT,
    MAX_FAILURES,
    OWNER_IDENTITY,
    LockAlert,
    OwnerAuthority,
    OwnerStatus,
)
from ordergate.owner._delays import COLLECT_WITHIN, DelayedAct, Delays, DelayState
from ordergate.owner._enrolment import (
    DEFAULT_LOOSEN_DELAY,
    ENROLMENT_FILE,
    MAX_LOOSEN_DELAY,
    DelaySettings,
    Enrolment,
    new_enrolment,
    read_enrolment,
    write_enrolment,
)
from ordergate.owner._errors import (
    BUSY,
    CODE_MISSING,
    CODE_REPLAYED,
    CODE_SPENT,
    CODE_WRONG,
    LOCKED,
    NOT_ENROLLED,
    EnrolmentError,
    OwnerError,
    OwnerRefused,
)
from ordergate.owner._passphrase import MIN_PASSPHRASE, check_passphrase_rules, passphrase_matches
from ordergate.owner._prepared import PREPARED_TTL, PreparedAct, PreparedActs, PreparedRefused
from ordergate.owner._qr import terminal_qr
from ordergate.owner._scrypt_pool import ScryptPool
from ordergate.owner._sources import (
    OWNER_CHANNEL,
    SOURCE_FAILURES,
    SOURCE_LOCKOUT,
    SOURCE_LOCKOUT_MAX,
    SOURCE_WINDOW,
    UNATTRIBUTED,
    SourceLock,
    acting_from,
    count_failure,
    current_source,
    forgive,
    source_locked,
)
from ordergate.owner._totp import (
    DIGITS,
    INTERVAL_S,
    looks_like_code,
    matching_step,
    new_totp_secret,
    provisioning_uri,
)

__all__ = [
    "BUSY",
    "CODE_MISSING",
    "CODE_REPLAYED",
    "CODE_SPENT",
    "CODE_WRONG",
    "COLLECT_WITHIN",
    "DEFAULT_LOOSEN_DELAY",
    "DIGITS",
    "ENROLMENT_FILE",
    "FAILURE_WINDOW",
    "INTERVAL_S",
    "LOCKED",
    "LOCKOUT",
    "MAX_FAILURES",
    "MAX_LOOSEN_DELAY",
    "MIN_PASSPHRASE",
    "NOT_ENROLLED",
    "OWNER_CHANNEL",
    "OWNER_IDENTITY",
    "PREPARED_TTL",
    "SOURCE_FAILURES",
    "SOURCE_LOCKOUT",
    "SOURCE_LOCKOUT_MAX",
    "SOURCE_WINDOW",
    "UNATTRIBUTED",
    "Credential",
    "DelaySettings",
    "DelayState",
    "DelayedAct",
    "Delays",
    "Enrolment",
    "EnrolmentError",
    "LockAlert",
    "OwnerAct",
    "OwnerAuthority",
    "OwnerError",
    "OwnerRefused",
    "OwnerStatus",
    "PreparedAct",
    "PreparedActs",
    "PreparedRefused",
    "ScryptPool",
    "SourceLock",
    "act_digest",
    "acting_from",
    "check_passphrase_rules",
    "count_failure",
    "current_source",
    "forgive",
    "looks_like_code",
    "matching_step",
    "new_enrolment",
    "new_totp_secret",
    "passphrase_matches",
    "provisioning_uri",
    "read_enrolment",
    "source_locked",
    "terminal_qr",
    "write_enrolment",
]
