"""The commented policy file a fresh install writes: paper, approval always, small caps."""

from __future__ import annotations

from pathlib import Path

from ordergate.core import create_private

__all__ = ["DEFAULT_POLICY_TOML", "write_default_policy"]

DEFAULT_POLICY_TOML = """\
# ordergate policy: the only limits between an agent and this account's money.
# Every key may be omitted; it then takes the conservative value shown here.
# Unknown keys are an error, so a misspelt cap is never silently ignored.
# Money is written as a string ("100" or "12.50"); floats are refused.

mode = "paper"                 # "paper" simulates fills; "live" also needs the real-money flag
approval = "always"            # "always" | "never" | "above:250" (approve orders over $250)
approval_ttl_s = 900           # a pending approval expires after this many seconds
approval_slippage_pct = "2"    # an approved order reviewed this much (%) above the estimate
                               # approved is held for the owner again
real_money = false             # with mode = "live": true places real orders; else paper runs

[limits]
max_order_usd = "100"          # notional of one order
max_daily_usd = "500"          # reserved + filled notional in any rolling 24 h
max_orders_per_day = 20        # orders in any rolling 24 h
max_open_orders = 5            # ordergate's open orders plus unknown ones at the broker
max_position_pct = "20"        # one position's value after the order, % of equity
min_cash_usd = "0"             # cash left after a buy
drawdown_halt_bps = 1000       # equity this far below its high-water mark halts buying
max_quote_age_s = 15           # older (or future-dated) quotes are refused
max_spread_bps = 50            # (ask - bid) / mid
price_collar_bps = 300         # a limit price (or a market order's estimate) this far from mid
daily_loss_halt_usd = "250"    # equity down this much since the session started halts buying
max_positions = 10             # distinct positions held
duplicate_window_s = 30        # the same order again from one agent this soon is refused (0: off)
max_orders_per_minute = 5      # orders accepted from one agent in any rolling minute
max_account_orders_per_minute = 10  # orders accepted for the account in any rolling minute
halt_cancels_open = false      # true: a tripped breaker also cancels every working order
# max_adv_pct = "1"            # off unless set: an order's quantity at most this % of the
                               # symbol's average daily volume (from the venue's day bars)

[symbols]
# Plain tickers only (ASCII letters and digits, one "." as in BRK.B). Omitted or empty:
# nothing is allowed. ["*"] allows every plain ticker. deny wins over allow.
allow = ["SPY", "VTI"]
deny = []

[orders]
types = ["market", "limit"]    # also "stop_market", "stop_limit"
sessions = ["regular_hours"]   # also "extended_hours", "all_day_hours"
fractional = true              # dollar amounts and fractional shares ($1 minimum)
short = false                  # never sell more than is held
margin = false                 # buys must fit in cash, whatever the broker's buying power
reducing_exempt = true         # orders that only reduce a position skip spend caps and breakers

[cooldown]
minutes = 0                    # buys refused this long after a breaker last refused, or after
                               # a streak of losses (0: off)
loss_streak = 0                # this many losing closed trades of one agent... (0: not counted)
loss_window_minutes = 60       # ...within this many minutes start its cooldown

# [options]                    # absent: every option order is refused (options_not_enabled)
# underlyings = ["SPY"]        # the symbols whose options may be traded
# strategies = ["long_call", "long_put", "covered_call", "cash_secured_put", "closing"]
#                              # shapes recognised from the legs and holdings, also:
#                              # debit_vertical, credit_vertical, iron_condor, iron_butterfly,
#                              # straddle, strangle, calendar, naked_call, naked_put, unrecognised
# max_contracts = 1            # contracts per order (quantity x the largest leg ratio)
# max_premium_usd = "100"      # one order's premium (per share x 100 x quantity)
# max_daily_premium_usd = "500"  # premium in any rolling 24 h, debit and credit alike
# max_loss_usd = "100"         # the most one order can lose at expiry, from its legs
# undefined_risk = false       # true lets an order with unbounded loss (a naked call) pass
# min_days_to_expiry = 1       # every opening leg's expiry at least this many days away...
# max_days_to_expiry = 60      # ...and at most this many
# no_open_last_minutes = 30    # no opening leg expiring today in the session's last minutes
# price_collar_bps = 1000      # the net limit this far from the legs' net mid at most
# split_daily_budget = false   # true: premium no longer counts against max_daily_usd

[paper]
starting_cash_usd = "10000"    # the paper account's cash before its first fill
slippage_bps = 0               # paper buys fill this far above the ask, sells below the bid
# account_type = "margin"      # the paper book's account type; unset: the real account's
# option_level = 3             # 1-3 (multi-leg needs margin at 3); unset: the real account's
"""


def write_default_policy(path: Path) -> Path:
    """Write the default policy to ``path`` (mode 0600, whole or not at all; a missing
    directory is created 0700); ``FileExistsError`` if it exists.

    Never overwrites: a person's edited policy is not replaced by defaults.
    """
    create_private(path, DEFAULT_POLICY_TOML.encode())
    return path
