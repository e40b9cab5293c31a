"""``exercise_option`` and ``cancel_option_exercise``: the owner's acts, which an agent can
only ask for.

The call files a request through the guard (``Guard.request_exercise``: the act, the
account, the ``option_id`` and the contract the venue lists under it, and for an exercise
the ``quantity`` in contracts) and the request is held for the owner whatever the policy or
the profile says; it answers as an order held for approval does (``_order.answered``: the
owner's console page to a client that takes URL elicitations, else ``pending_approval``).
Nothing reaches the venue until the owner approves with the owner code, the CLI or the
console. ``ref_id`` is the agent's own key: a retry under it answers its first request.
Any other argument is refused before anything is filed, naming it (``ARGUMENT_NOT_FILED``).
"""

from __future__ import annotations

from typing import Any

from ordergate.execution import CANCEL_EXERCISE, EXERCISE, Guard, Outcome
from ordergate.gateway.mcp._call import Call
from ordergate.gateway.mcp._order import answered, refuse_busy, resume
from ordergate.gateway.mcp._proposal import AGENT_KEY, NotFiled, agent_key, shown_name
from ordergate.gateway.mcp._refusing import Failure, refuse, step
from ordergate.ledger import AccountBusyError
from ordergate.policy import ProposalError

__all__ = ["option_exercise"]

REQUEST_FAILED = Failure(
    "an exercise request",
    "ORDER_PATH_FAILED",
    "The gateway could not file the exercise request. Read gate_record before asking again.",
)


def _act(name: str) -> str:
    return CANCEL_EXERCISE if name.startswith("cancel") else EXERCISE


async def option_exercise(call: Call) -> dict[str, Any]:
    """An exercise, or its withdrawal, filed and held for the owner (see the module)."""
    if call.request_state is not None:  # a retry of a request held for the owner
        return await resume(call)
    act = _act(call.name)
    allowed = {"account_number", "option_id", AGENT_KEY}
    if act == EXERCISE:
        allowed.add("quantity")
    for name in call.arguments:
        if name not in allowed:
            refuse(
                "ARGUMENT_NOT_FILED",
                f"The gateway files only {', '.join(sorted(allowed))} of {call.name}; "
                f"{shown_name(name)} cannot be filed, so nothing was filed or sent.",
            )
    try:
        key = agent_key(call.arguments)
    except NotFiled as refusal:
        refuse(refusal.code, refusal.message)
    guard = await call.guard()
    account = call.arguments.get("account_number")
    if account is not None and account != guard.account:
        refuse("INVALID_ORDER", "account_number is not this gateway's account. Nothing was filed.")
    option_id = call.arguments.get("option_id")
    if not isinstance(option_id, str):
        refuse("INVALID_ORDER", "option_id must be a string. Nothing was filed or sent.")
    quantity = call.arguments.get("quantity")
    if isinstance(quantity, str) and quantity.isdigit():
        quantity = int(quantity)
    try:
        async with guard.turn():
            outcome = await step(
                _request(guard, call, act, option_id, quantity, key), REQUEST_FAILED
            )
    except AccountBusyError as busy:
        refuse_busy(busy)
    return await answered(call, guard, outcome)


async def _request(
    guard: Guard, call: Call, act: str, option_id: str, quantity: Any, key: Any
) -> Outcome:
    try:
        return await guard.request_exercise(
            act=act,
            option_id=option_id,
            quantity=quantity,
            identity=call.identity,
            agent_key=key,
        )
    except ProposalError as error:
        refuse(
            "INVALID_ORDER",
            f"The request cannot be filed ({error.field}: {error.reason}). Nothing was filed "
            "or sent.",
        )
