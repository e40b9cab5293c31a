"""What becomes of option positions at the close: exercises and expirations.

Exercise (``exercise_option``) is asked for during the day and carried out at the next
regular close (``cancel_option_exercise`` withdraws it until then):

- a call exercise holds ``strike x 100`` a contract of buying power; at the close it pays
  that for ``100`` shares a contract, which join the equity desk's positions as one tax lot
  whose cost per share is the strike plus the average premium paid;
- a put exercise needs 100 free shares a contract (not covering a short call, not held by a
  sell order); at the close they are sold at the strike from the oldest lots, the average
  premium paid reducing the proceeds of the equity trades booked. Short sales are refused
  whatever ``allow_shorts`` says: a cash account may not sell short, and on a margin account
  the sandbox holds no short stock (the equity desk never sells short either);
- the exercised contracts leave the option position without a closed option trade (their
  premium lives on in the shares' basis or the sale's proceeds);
- with no equity desk on the venue, exercise is refused (``UNAVAILABLE``); an exercise whose
  contracts or shares are gone by the close ends ``failed``, moving nothing.

Expiration: a position still open when its contract expires (the regular close of the
expiration date) settles on the underlying's price at that close; without a usable price of
the underlying then (a market of observed quotes may have none) it stays open until one is
known.

- Assignment: a short contract in the money that no long contract covers (``cover``: a
  covered call, a cash-secured put) is assigned. A call delivers its 100 shares a contract
  at the strike from the oldest free lots (the premium received adds to the proceeds of the
  equity trades booked); a put buys 100 shares a contract at the strike, one tax lot whose
  cost per share is the strike less the premium received. The contracts leave the position
  without a closed option trade, as an exercise's do. A call whose shares are gone settles
  in cash instead.
- Everything else (a long contract, a short one out of the money, a spread's legs) settles
  in cash at intrinsic value and books a closed trade at that price. The sandbox never
  exercises a long contract automatically.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ordergate.core import ZERO, MarketHours
from ordergate.sandbox.market import MULTIPLIER, OptionType
from ordergate.sandbox.tools._registry import VenueError
from ordergate.sandbox.venue._equity import EquityDesk
from ordergate.sandbox.venue._equity_market import session_window
from ordergate.sandbox.venue._options_book import OptionPosition
from ordergate.sandbox.venue._options_cover import cover
from ordergate.sandbox.venue._options_model import ExerciseState, OptionExercise
from ordergate.sandbox.venue._order_rules import invalid, ref_id_of
from ordergate.sandbox.venue._positions import TaxLot, cents

if TYPE_CHECKING:
    from ordergate.sandbox.venue._options import OptionsDesk
    from ordergate.sandbox.venue._venue import Venue

__all__ = ["Settlement", "exercise_key"]


def exercise_key(exercise_id: str) -> str:
    return f"option-exercise:{exercise_id}"


class Settlement:
    """The options desk's exercises and expirations."""

    def __init__(self, venue: Venue, desk: OptionsDesk) -> None:
        self._venue = venue
        self._desk = desk
        self._exercises: dict[str, OptionExercise] = {}
        self._by_ref: dict[tuple[str, str], OptionExercise] = {}

    # -- reading ---------------------------------------------------------------------------

    def exercises(self, account_number: str) -> list[OptionExercise]:
        return [e for e in self._exercises.values() if e.account_number == account_number]

    def pending(self, account_number: str, option_id: str) -> int:
        """Contracts of ``option_id`` waiting to be exercised."""
        return sum(
            e.quantity
            for e in self.exercises(account_number)
            if e.is_pending and e.instrument.id == option_id
        )

    def delivering(self, account_number: str, symbol: str) -> int:
        """Contracts of pending put exercises that will deliver shares of ``symbol``."""
        return sum(
            e.quantity
            for e in self.exercises(account_number)
            if e.is_pending
            and e.instrument.type is OptionType.PUT
            and e.instrument.chain_symbol == symbol
        )

    # -- asking and withdrawing ------------------------------------------------------------

    def exercise(self, args: Mapping[str, Any]) -> OptionExercise:
        """Ask to exercise long contracts (see the module docstring).

        Raises ``VenueError``: ``NOT_FOUND``, ``OPTION_NOT_TRADABLE``,
        ``INSUFFICIENT_POSITION``, ``INSUFFICIENT_BUYING_POWER``, ``INSUFFICIENT_SHARES``,
        ``UNAVAILABLE``, ``INVALID_ARGUMENT``.
        """
        desk = self._desk
        account = self._venue.accounts.tradable(str(args["account_number"]))
        number = account.account_number
        ref_id = ref_id_of(args)
        if ref_id is not None:
            earlier = self._by_ref.get((number, ref_id.lower()))
            if earlier is not None:
                return earlier
        instrument = desk.instrument(str(args["option_id"]))
        if instrument is None:
            raise VenueError("NOT_FOUND", f"no option {args['option_id']!r}", field="option_id")
        if instrument.state != "active":
            raise VenueError(
                "OPTION_NOT_TRADABLE", "an expired option cannot be exercised", field="option_id"
            )
        quantity = args["quantity"]
        if isinstance(quantity, bool) or int(quantity) != quantity or quantity < 1:
            raise invalid("quantity", "quantity must be a whole number of at least 1")
        contracts = int(quantity)
        held = desk.positions.quantity(number, instrument.id)
        available = max(held, 0) - desk.closing(number, instrument.id)
        if contracts > available:
            raise VenueError(
                "INSUFFICIENT_POSITION",
                f"{max(available, 0)} long contracts are available to exercise",
                field="quantity",
            )
        if desk.equity_desk() is None:
            raise VenueError("UNAVAILABLE", "exercise needs the equity desk, which is not running")
        shares = MULTIPLIER * contracts
        strike_value = instrument.strike_price * shares
        if instrument.type is OptionType.CALL:
            if strike_value > account.buying_power:
                raise VenueError(
                    "INSUFFICIENT_BUYING_POWER",
                    f"exercising needs {cents(strike_value)} of buying power; "
                    f"{cents(account.buying_power)} is available",
                    field="quantity",
                )
        else:
            free = desk.free_shares(number, instrument.chain_symbol)
            if shares > free:
                shorting = (
                    " (short sales are not allowed in a cash account)"
                    if account.type == "cash"
                    else " (the sandbox venue holds no short stock positions)"
                )
                raise VenueError(
                    "INSUFFICIENT_SHARES",
                    f"exercising needs {shares} free shares of "
                    f"{instrument.chain_symbol}; {max(free, ZERO)} are free"
                    + (shorting if args.get("allow_shorts") else ""),
                    field="quantity",
                )
        now = self._venue.now()
        ids = self._venue.ids
        exercise = OptionExercise(
            id=ids.next("option-exercise"),
            ref_id=ref_id or ids.next("option-exercise-ref"),
            account_number=number,
            instrument=instrument,
            quantity=contracts,
            created_at=now,
            process_at=session_window(desk.calendar, now, MarketHours.REGULAR_HOURS).day_ends_at,
            reason=None if args.get("reason") in (None, "") else str(args["reason"]),
            updated_at=now,
            sequence=len(self._exercises),
        )
        if instrument.type is OptionType.CALL:
            account.hold(exercise_key(exercise.id), strike_value)
        self._exercises[exercise.id] = exercise
        self._by_ref[(number, exercise.ref_id.lower())] = exercise
        return exercise

    def withdraw(self, account_number: str, option_id: str) -> list[OptionExercise]:
        """Cancel the account's pending exercises of ``option_id`` (before their close)."""
        self._venue.accounts.tradable(account_number)
        wanted = option_id.strip().lower()
        pending = [
            e for e in self.exercises(account_number) if e.is_pending and e.instrument.id == wanted
        ]
        if not pending:
            raise VenueError(
                "NOT_FOUND", f"no pending exercise of option {option_id}", field="option_id"
            )
        now = self._venue.now()
        account = self._venue.accounts.get(account_number)
        for exercise in pending:
            exercise.state = ExerciseState.CANCELLED
            exercise.updated_at = now
            account.release(exercise_key(exercise.id))
        return pending

    # -- at the close ----------------------------------------------------------------------

    def _due(self, now: datetime) -> list[OptionExercise]:
        """The pending exercises whose close has come, in the order they are carried out."""
        due = [e for e in self._exercises.values() if e.is_pending and e.process_at <= now]
        return sorted(due, key=lambda e: (e.process_at, e.sequence))

    def _expired(self, now: datetime) -> list[OptionPosition]:
        return [p for p in self._desk.positions.held() if p.instrument.expires_at <= now]

    def idle(self, now: datetime) -> bool:
        """Nothing to carry out or settle at ``now``."""
        return not self._due(now) and not self._expired(now)

    def sync(self, now: datetime) -> None:
        """Carry out the exercises whose close has come, then settle expired positions
        (each account's shorts paired with its longs as they stood before any settled)."""
        for exercise in self._due(now):
            self._carry_out(exercise)
        expired = self._expired(now)
        alone: dict[str, dict[str, int]] = {}
        for position in expired:
            number = position.account_number
            if number not in alone:
                alone[number] = cover(self._desk.holdings(number)).alone
            self._expire(position, alone[number].get(position.option_id, 0))

    def _fail(self, exercise: OptionExercise, reason: str) -> None:
        exercise.state = ExerciseState.FAILED
        exercise.failure_reason = reason

    def _carry_out(self, exercise: OptionExercise) -> None:
        at = exercise.process_at
        exercise.updated_at = at
        account = self._venue.accounts.get(exercise.account_number)
        account.release(exercise_key(exercise.id))
        number = exercise.account_number
        instrument = exercise.instrument
        position = self._desk.positions.get(number, instrument.id)
        equity = self._desk.equity_desk()
        if position is None or position.quantity < exercise.quantity or equity is None:
            self._fail(exercise, "the long contracts are no longer held")
            return
        premium = position.average_price
        symbol = instrument.chain_symbol
        if instrument.type is OptionType.CALL:
            _take_shares(self._venue, equity, position, exercise.shares, premium, at, exercise.id)
        elif not _deliver_shares(
            self._venue, equity, position, exercise.shares, -premium, at, exercise.id
        ):
            self._fail(exercise, f"{exercise.shares} free shares of {symbol} are needed")
            return
        self._desk.positions.remove(number, instrument.id, exercise.quantity, at)
        exercise.state = ExerciseState.COMPLETED
        self._desk.secure(number)

    def _expire(self, position: OptionPosition, alone: int) -> None:
        """Settle ``position`` at its expiration: ``alone`` of its short contracts no long
        contract covers are assigned when in the money, the rest settle in cash."""
        instrument = position.instrument
        at = instrument.expires_at
        spot = self._desk.market.underlying_price(instrument, at)
        if spot is None:
            return
        strike = instrument.strike_price
        gap = spot - strike if instrument.type is OptionType.CALL else strike - spot
        intrinsic = cents(max(ZERO, gap))
        if intrinsic > 0 and alone and not position.is_long:
            self._assign(position, min(alone, position.contracts), at)
            if not position.quantity:
                self._desk.secure(position.account_number)
                return
        contracts = position.contracts
        sign = 1 if position.is_long else -1
        account = self._venue.accounts.get(position.account_number)
        account.cash += sign * intrinsic * MULTIPLIER * contracts
        settlement = self._venue.ids.next("option-expiration")
        self._desk.positions.close(
            account_number=position.account_number,
            option_id=instrument.id,
            contracts=contracts,
            price=intrinsic,
            at=at,
            order_id=settlement,
            execution_id=settlement,
            trade_id=self._venue.ids.next("option-closed-trade"),
        )
        self._desk.secure(position.account_number)

    def _assign(self, position: OptionPosition, contracts: int, at: datetime) -> None:
        """``contracts`` of a short position in the money assigned (see the module
        docstring); a call whose shares are gone is left to settle in cash."""
        equity = self._desk.equity_desk()
        if equity is None:
            return
        shares = Decimal(MULTIPLIER * contracts)
        event_id = self._venue.ids.next("option-assignment")
        premium = position.average_price
        if position.instrument.type is OptionType.CALL:
            if not _deliver_shares(self._venue, equity, position, shares, premium, at, event_id):
                return
        else:
            _take_shares(self._venue, equity, position, shares, -premium, at, event_id)
        self._desk.positions.remove(position.account_number, position.option_id, contracts, at)


def _take_shares(
    venue: Venue,
    equity: EquityDesk,
    position: OptionPosition,
    shares: Decimal,
    premium: Decimal,
    at: datetime,
    event_id: str,
) -> None:
    """The account pays the strike for ``shares`` of the underlying: one tax lot whose cost
    per share is the strike plus ``premium`` (paid: a call exercised; less, received: a put
    assigned)."""
    instrument = position.instrument
    symbol = instrument.chain_symbol
    listing = equity.listing(symbol)
    instrument_id = listing.instrument_id if listing is not None else instrument.chain_id
    venue.accounts.get(position.account_number).cash -= instrument.strike_price * shares
    equity.positions.buy(
        TaxLot(
            lot_id=venue.ids.next("equity-lot"),
            account_number=position.account_number,
            symbol=symbol,
            instrument_id=instrument_id,
            quantity=shares,
            original_quantity=shares,
            price=instrument.strike_price + premium,
            acquired_at=at,
            order_id=event_id,
            execution_id=event_id,
        )
    )


def _deliver_shares(
    venue: Venue,
    equity: EquityDesk,
    position: OptionPosition,
    shares: Decimal,
    premium: Decimal,
    at: datetime,
    event_id: str,
) -> bool:
    """The account delivers ``shares`` of the underlying from its oldest free lots and is
    paid the strike, the trades booked at the strike plus ``premium`` a share (received: a
    call assigned; less, paid: a put exercised). ``False`` (nothing moved) without the
    free shares."""
    instrument = position.instrument
    number, symbol = position.account_number, instrument.chain_symbol
    plan = _oldest_free_lots(equity, number, symbol, shares)
    if plan is None:
        return False
    venue.accounts.get(number).cash += instrument.strike_price * shares
    equity.positions.sell(
        account_number=number,
        symbol=symbol,
        quantity=shares,
        price=instrument.strike_price + premium,
        fees=Decimal("0.00"),
        at=at,
        order_id=event_id,
        execution_id=event_id,
        plan=plan,
        trade_ids=[venue.ids.next("equity-closed-trade") for _ in plan],
    )
    return True


def _oldest_free_lots(
    desk: EquityDesk, account_number: str, symbol: str, shares: Decimal
) -> list[tuple[str, Decimal]] | None:
    """Lots to deliver ``shares`` from, oldest first, skipping shares sell orders reserved."""
    free = desk.positions.quantity(account_number, symbol)
    if free - desk.held_for_sells(account_number, symbol) < shares:
        return None
    reserved: dict[str, Decimal] = {}
    for order in desk.open_orders(account_number):
        if order.lots_left:
            for lot_id, quantity in order.lots_left:
                reserved[lot_id] = reserved.get(lot_id, ZERO) + quantity
    plan: list[tuple[str, Decimal]] = []
    left = shares
    for lot in desk.positions.lots(account_number, symbol):
        take = min(lot.quantity - reserved.get(lot.lot_id, ZERO), left)
        if take > 0:
            plan.append((lot.lot_id, take))
            left -= take
        if left <= 0:
            break
    return plan
