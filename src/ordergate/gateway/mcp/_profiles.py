"""What a connection's profile lets it see and call (``ordergate.profiles``).

``tools/list`` shows only the upstream tools the profile permits, and always the gateway's
own (``gate_how``, ``gate_record``, ``gate_disconnect``); a call outside the profile is
refused with a plain sentence naming the permission it lacks, and nothing is sent. The
equity order tool found by capability needs ``orders.place`` whatever its name or markings;
every other tool needs what ``permission_for`` reads from the words of its name.

A connection whose profile is not defined on this gateway (a profile file removed since,
or a connection from before profiles) sees only the gateway's own tools and can call nothing
else: it fails closed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ordergate.gateway.mcp._catalog import GATE_TOOLS, Listing
from ordergate.profiles import PERMISSION_PHRASES, Permission, Profile, permission_for

__all__ = [
    "GATE_NAMES",
    "UNDEFINED",
    "needs",
    "profile_facts",
    "profile_instructions",
    "refusal_for",
    "refusal_sentence",
    "visible_to",
]

GATE_NAMES = frozenset(str(tool["name"]) for tool in GATE_TOOLS)
UNDEFINED = (
    "this connection's profile is not defined on this gateway, so it may only use the "
    "gateway's own tools; connect again to choose a profile"
)


def needs(descriptor: Mapping[str, Any], order_tool: str | None) -> Permission | None:
    """The permission calling the tool takes (``None``: no profile may call it)."""
    name = str(descriptor.get("name"))
    if order_tool is not None and name == order_tool:
        return Permission.ORDERS_PLACE
    annotations = descriptor.get("annotations")
    return permission_for(name, annotations if isinstance(annotations, Mapping) else None)


def visible_to(profile: Profile | None, listing: Listing) -> list[dict[str, Any]]:
    """The tools ``profile`` sees, in the listing's order."""
    visible = []
    for tool in listing.served:
        name = tool.get("name")
        if name in GATE_NAMES:
            visible.append(tool)
            continue
        wanted = needs(tool, listing.order_tool)
        if profile is not None and wanted is not None and profile.allows(wanted):
            visible.append(tool)
    return visible


def refusal_for(
    profile: Profile | None, descriptor: Mapping[str, Any], wanted: Permission | None
) -> str | None:
    """``None`` when ``profile`` may call the tool, which takes ``wanted`` (``needs``: decided
    once per listing), else the sentence saying why not."""
    if profile is None:
        return UNDEFINED
    if wanted is None:
        return (
            f"this connection's profile '{profile.name}' does not permit "
            f"{descriptor.get('name')}: no profile may call it"
        )
    if profile.allows(wanted):
        return None
    return refusal_sentence(profile, wanted)


def refusal_sentence(profile: Profile, permission: Permission) -> str:
    """Why ``profile`` may not do what ``permission`` allows."""
    return (
        f"this connection's profile '{profile.name}' does not permit "
        f"{PERMISSION_PHRASES[permission]} ({permission})"
    )


def profile_instructions(base: str, profile: Profile) -> str:
    """The MCP ``instructions`` for a connection: the gateway's own, the profile's name and
    permissions, then the profile's system prompt when it has one."""
    allowed = ", ".join(sorted(profile.permissions)) or "nothing"
    text = f"{base} This connection's profile is '{profile.name}' ({allowed})."
    if profile.system_prompt:
        text += "\n\n" + profile.system_prompt.strip()
    return text


def profile_facts(profile: Profile | None) -> dict[str, Any]:
    """What ``gate_how`` says of the connection's profile."""
    if profile is None:
        return {"name": None, "permissions": [], "system_prompt": None, "note": UNDEFINED}
    return {
        "name": profile.name,
        "description": profile.description,
        "permissions": sorted(profile.permissions),
        "system_prompt": profile.system_prompt,
    }
