"""A profile: what one connected agent may do, and what the gateway shows and refuses it.

The permission set is exhaustive: a tool is visible and callable only when the profile
holds the permission ``permission_for`` names for it, and a tool that needs no grantable
permission (``None``) is never permitted. ``visible_tools`` filters an MCP ``tools/list``;
``refusal_for`` gives the plain sentence for a call outside the profile.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from ordergate.profiles._overrides import PolicyOverrides
from ordergate.profiles._permissions import PERMISSION_PHRASES, Permission
from ordergate.profiles._tools import permission_for

__all__ = ["Profile", "refusal_for", "visible_tools"]


@dataclass(frozen=True, slots=True)
class Profile:
    """A named, exhaustive set of permissions, an optional system prompt (served as the MCP
    ``instructions``) and policy overrides that only tighten."""

    name: str
    description: str
    permissions: frozenset[Permission]
    system_prompt: str | None = None
    overrides: PolicyOverrides = field(default_factory=PolicyOverrides)

    def allows(self, permission: Permission) -> bool:
        """Whether this profile grants ``permission``."""
        return permission in self.permissions


def _annotations(tool: Mapping[str, Any]) -> Mapping[str, Any] | None:
    annotations = tool.get("annotations")
    return annotations if isinstance(annotations, Mapping) else None


def visible_tools(
    profile: Profile, tools: list[dict[str, Any]], *, keep: Collection[str] = ()
) -> list[dict[str, Any]]:
    """The tools of an MCP ``tools/list`` that ``profile`` permits, in their order.

    ``keep`` names tools listed whatever the profile (the gateway's own, such as
    ``gate_how``). A descriptor without a string name is dropped.
    """
    visible: list[dict[str, Any]] = []
    for tool in tools:
        name = tool.get("name")
        if not isinstance(name, str):
            continue
        if name in keep:
            visible.append(tool)
            continue
        permission = permission_for(name, _annotations(tool))
        if permission is not None and profile.allows(permission):
            visible.append(tool)
    return visible


def refusal_for(
    profile: Profile, tool_name: str, annotations: Mapping[str, Any] | None = None
) -> str | None:
    """``None`` when ``profile`` permits calling ``tool_name``, else the sentence saying why
    not: "this connection's profile 'monitor' does not permit placing orders
    (orders.place)". A tool no profile may call gets its own sentence."""
    permission = permission_for(tool_name, annotations)
    if permission is None:
        return (
            f"this connection's profile '{profile.name}' does not permit {tool_name}: "
            "no profile may call it"
        )
    if profile.allows(permission):
        return None
    return (
        f"this connection's profile '{profile.name}' does not permit "
        f"{PERMISSION_PHRASES[permission]} ({permission})"
    )
