"""Profiles: what each connected agent may do, whatever the account could.

A ``Profile`` names an exhaustive set of ``Permission`` values from a fixed vocabulary,
an optional system prompt and ``PolicyOverrides`` that can only tighten the account
policy. ``permission_for`` says which permission a Robinhood tool needs, from the words of
its name (``None``: no profile may call it); ``visible_tools`` filters a ``tools/list``
and ``refusal_for`` words the refusal of a call outside the profile. ``load_profiles``
reads the built-ins (``monitor``, the default, ``researcher``, ``trader``) and the files
in ``ORDERGATE_HOME/profiles``, each checked against the account policy.

Errors::

    OrdergateError
    └── ConfigError          (ordergate.core) the key and the reason
        └── ProfileError     a profile file refused at load: its source and field

This package reads the inventory's vocabulary (``ordergate.discovery``) and the policy
(``ordergate.policy``); the gateway wires it, it never reaches the gateway.
"""

from ordergate.profiles._errors import ProfileError
from ordergate.profiles._load import BUILTIN_PROFILES, DEFAULT_PROFILE, Profiles, load_profiles
from ordergate.profiles._overrides import PolicyOverrides, check_tightens, parse_overrides
from ordergate.profiles._permissions import PERMISSION_PHRASES, Permission
from ordergate.profiles._profile import Profile, refusal_for, visible_tools
from ordergate.profiles._tools import permission_for

__all__ = [
    "BUILTIN_PROFILES",
    "DEFAULT_PROFILE",
    "PERMISSION_PHRASES",
    "Permission",
    "PolicyOverrides",
    "Profile",
    "ProfileError",
    "Profiles",
    "check_tightens",
    "load_profiles",
    "parse_overrides",
    "permission_for",
    "refusal_for",
    "visible_tools",
]
